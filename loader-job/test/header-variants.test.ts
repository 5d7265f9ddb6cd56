import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { splitCsvRecord } from '../src/load/csv-record.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';
import { catalogFingerprint } from './catalog-state.js';

const silent = pino({ level: 'silent' });

/** Rewrites a CSV file with its columns in another order (by header name), optionally with a trailing empty column. */
async function reorder(path: string, order: string[], trailingEmptyColumn: boolean): Promise<void> {
  const [header, ...records] = (await readFile(path, 'utf8')).trimEnd().split('\n');
  const names = (splitCsvRecord(header!) as { fields: string[] }).fields;
  const rewritten = [header!, ...records].map((line) => {
    const fields = line.split(','); // the generated skus have no quoted commas
    const moved = order.map((name) => fields[names.indexOf(name)]!);
    return `${moved.join(',')}${trailingEmptyColumn ? ',' : ''}`;
  });
  rewritten[0] = rewritten[0]!.replace('styleId', 'STYLE_ID');
  await writeFile(path, `${rewritten.join('\n')}\n`);
}

test('columns are matched by header name in any order, case-insensitively, with or without an empty extra column', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-headers-'));
  const original = join(dir, 'original');
  await generateCatalog({ outDir: original, products: 100, seed: 9 });
  const referenceUrl = await createTestDatabase('loader_headers_reference');
  await loadCatalog({ databaseUrl: referenceUrl, dataDir: original, logger: silent });
  const expected = await catalogFingerprint(referenceUrl);

  for (const trailingEmptyColumn of [false, true]) {
    const variant = join(dir, `variant-${trailingEmptyColumn}`);
    await cp(original, variant, { recursive: true });
    await reorder(join(variant, 'skus.csv'), ['quantity', 'size', 'styleId', 'id'], trailingEmptyColumn);
    const databaseUrl = await createTestDatabase('loader_headers');
    const report = await loadCatalog({ databaseUrl, dataDir: variant, logger: silent });
    assert.equal(report.totals.recordsRejected, 0);
    assert.deepEqual(await catalogFingerprint(databaseUrl), expected, `trailing empty column: ${trailingEmptyColumn}`);
  }
});
