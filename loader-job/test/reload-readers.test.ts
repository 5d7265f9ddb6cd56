import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { CATALOG_FILES } from '../src/catalog-files.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';
import type { LoadReport } from '../src/load/load-report.js';

const silent = pino({ level: 'silent' });
const loadedRows = (report: LoadReport) => new Map(report.files.map((file) => [file.table, file.records.loaded]));

test('a reader polling during a reload only ever sees the whole old or the whole new catalog', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-readers-'));
  await generateCatalog({ outDir: join(dir, 'old'), products: 500, seed: 3 });
  await generateCatalog({ outDir: join(dir, 'new'), products: 10_000, seed: 4 });
  const databaseUrl = await createTestDatabase('loader_readers');
  const oldRows = loadedRows(await loadCatalog({ databaseUrl, dataDir: join(dir, 'old'), logger: silent }));

  const reader = new pg.Client({ connectionString: databaseUrl });
  await reader.connect();
  const seen = new Map(CATALOG_FILES.map(({ table }) => [table, new Set<number>()]));
  let reloading = true;
  // Each statement is one reader request; every table is checked in turn, as fast as possible.
  const polling = (async () => {
    let polls = 0;
    while (reloading || polls === 0) {
      for (const { table } of CATALOG_FILES) {
        const { rows } = await reader.query<{ count: string }>(`SELECT count(*) AS count FROM catalog.${table}`);
        seen.get(table)!.add(Number(rows[0]!.count));
      }
      polls++;
    }
    return polls;
  })();
  try {
    const newRows = loadedRows(await loadCatalog({ databaseUrl, dataDir: join(dir, 'new'), logger: silent }));
    reloading = false;
    const polls = await polling;
    assert.ok(polls > 5, `the reader kept reading during the reload (${polls} rounds)`);
    for (const { table } of CATALOG_FILES) {
      const counts = [...seen.get(table)!].sort((a, b) => a - b);
      assert.ok(
        counts.every((count) => count === oldRows.get(table) || count === newRows.get(table)),
        `${table}: saw ${counts.join(', ')}; only ${oldRows.get(table)} (old) or ${newRows.get(table)} (new) are whole catalogs`,
      );
      assert.ok(counts.includes(oldRows.get(table)!), `${table}: the old catalog was served while the new one loaded`);
    }
  } finally {
    reloading = false;
    await polling.catch(() => {});
    await reader.end();
  }
});
