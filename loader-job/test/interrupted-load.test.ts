import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';
import { catalogFingerprint, loaderSchemas } from './catalog-state.js';
import { startLoaderCli } from './loader-process.js';

const silent = pino({ level: 'silent' });

test('a load killed mid-COPY leaves the old catalog served, and a rerun converges', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-kill-'));
  const oldExport = join(dir, 'old');
  const newExport = join(dir, 'new');
  await generateCatalog({ outDir: oldExport, products: 200, seed: 1 });
  await generateCatalog({ outDir: newExport, products: 5_000, seed: 2, dirty: true });
  const databaseUrl = await createTestDatabase('loader_kill');
  await loadCatalog({ databaseUrl, dataDir: oldExport, logger: silent });
  const oldCatalog = await catalogFingerprint(databaseUrl);

  const loader = startLoaderCli(['load', '--data', newExport, '--rejects', join(dir, 'rejects.ndjson')], { DATABASE_URL: databaseUrl });
  // Four files are in, photos.csv is streaming: the build schema is half-loaded.
  await loader.waitForOutput((line) => line.includes('"msg":"loading file"') && line.includes('photos.csv'));
  loader.signal('SIGKILL');
  await loader.exited;
  assert.equal(loader.signalCode, 'SIGKILL');

  assert.deepEqual(await catalogFingerprint(databaseUrl), oldCatalog, 'the old catalog is still served, unchanged');
  assert.ok(
    (await loaderSchemas(databaseUrl)).some((name) => name.startsWith('catalog_load_')),
    'the killed build is left behind',
  );

  const leftBehind = (await loaderSchemas(databaseUrl)).filter((name) => name.startsWith('catalog_load_'));
  const rerun = await loadCatalog({ databaseUrl, dataDir: newExport, logger: silent });
  assert.deepEqual(await loaderSchemas(databaseUrl), ['catalog'], 'the rerun cleaned up the half-built schema');
  assert.deepEqual(
    rerun.leftoversDropped.map((leftover) => leftover.schema),
    leftBehind,
    'the rerun reports what it dropped',
  );
  assert.ok(rerun.leftoversDropped[0]!.bytes > 0, 'with its size');
  const referenceUrl = await createTestDatabase('loader_kill_reference');
  await loadCatalog({ databaseUrl: referenceUrl, dataDir: newExport, logger: silent });
  assert.deepEqual(await catalogFingerprint(databaseUrl), await catalogFingerprint(referenceUrl), 'same state as an uninterrupted load');
  assert.equal(Number((await catalogFingerprint(databaseUrl)).products!.split(':')[0]), rerun.files[0]!.records.loaded);

  await loadCatalog({ databaseUrl, dataDir: newExport, logger: silent });
  assert.deepEqual(await catalogFingerprint(databaseUrl), await catalogFingerprint(referenceUrl), 'loading again changes nothing');
});

test('a load stopped by SIGTERM mid-COPY drops its own build schema and exits 143, the old catalog served', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-term-'));
  const oldExport = join(dir, 'old');
  const newExport = join(dir, 'new');
  await generateCatalog({ outDir: oldExport, products: 200, seed: 3 });
  await generateCatalog({ outDir: newExport, products: 5_000, seed: 4 });
  const databaseUrl = await createTestDatabase('loader_term');
  await loadCatalog({ databaseUrl, dataDir: oldExport, logger: silent });
  const oldCatalog = await catalogFingerprint(databaseUrl);

  const loader = startLoaderCli(['load', '--data', newExport, '--rejects', join(dir, 'rejects.ndjson')], { DATABASE_URL: databaseUrl });
  await loader.waitForOutput((line) => line.includes('"msg":"loading file"') && line.includes('photos.csv'));
  assert.ok(
    (await loaderSchemas(databaseUrl)).some((name) => name.startsWith('catalog_load_')),
    'the build is under way',
  );
  loader.signal('SIGTERM');
  const code = await loader.exited;
  const output = loader.output;
  assert.equal(code, 143, output);
  assert.match(output, /load interrupted \(SIGTERM\)/);
  assert.deepEqual(await loaderSchemas(databaseUrl), ['catalog'], 'no build schema is left');
  assert.deepEqual(await catalogFingerprint(databaseUrl), oldCatalog, 'the old catalog is still served, unchanged');
});
