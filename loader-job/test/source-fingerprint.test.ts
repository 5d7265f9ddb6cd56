import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';

const silent = pino({ level: 'silent' });

async function sloganOf(databaseUrl: string, id: number): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ slogan: string | null }>('SELECT slogan FROM catalog.products WHERE id = $1', [id])).rows[0]!.slogan;
  } finally {
    await client.end();
  }
}

async function writeSlogan(databaseUrl: string, id: number, slogan: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('UPDATE catalog.products SET slogan = $2 WHERE id = $1', [id, slogan]);
  } finally {
    await client.end();
  }
}

test('--skip-if-source-unchanged keeps the served catalog, and writes made since, when the source fingerprint is the same; a new fingerprint reloads', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'loader-fingerprint-'));
  await generateCatalog({ outDir: dataDir, products: 100, seed: 9 });
  const databaseUrl = await createTestDatabase('loader_fingerprint');

  const first = await loadCatalog({ databaseUrl, dataDir, skipIfSourceUnchanged: 'source-a', logger: silent });
  assert.equal(first.outcome, 'swapped', 'nothing served yet: it loads');
  const loaded = await sloganOf(databaseUrl, 1);
  await writeSlogan(databaseUrl, 1, 'written through the API');

  const again = await loadCatalog({ databaseUrl, dataDir, skipIfSourceUnchanged: 'source-a', logger: silent });
  assert.equal(again.outcome, 'unchanged');
  assert.equal(await sloganOf(databaseUrl, 1), 'written through the API', 'the write survives an upgrade that did not change the source');

  const changed = await loadCatalog({ databaseUrl, dataDir, skipIfSourceUnchanged: 'source-b', logger: silent });
  assert.equal(changed.outcome, 'swapped', 'a new fingerprint (source changed, or a new runId) reloads');
  assert.equal(await sloganOf(databaseUrl, 1), loaded, 'the reload replaced the catalog from the files');

  const unconditional = await loadCatalog({ databaseUrl, dataDir, logger: silent });
  assert.equal(unconditional.outcome, 'swapped', 'without the flag every load reloads');
  const afterUnconditional = await loadCatalog({ databaseUrl, dataDir, skipIfSourceUnchanged: 'source-b', logger: silent });
  assert.equal(afterUnconditional.outcome, 'swapped', 'a catalog loaded without a fingerprint matches none');
});
