import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { PRODUCT_TEXT_MAX_LENGTH, readConstraintStatements } from '@catalog/contract';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { incompressibleText } from '../../scripts/test/incompressible-text.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';
import type { RejectedRecord } from '../src/load/rejects-writer.js';

const { name: NAME_MAX, category: CATEGORY_MAX } = PRODUCT_TEXT_MAX_LENGTH;

/**
 * Name and category are keys of the storefront indexes, which Postgres caps in bytes: a value
 * over its limit would fail the index build, and with it the whole load. It is rejected as a
 * row instead, and a row at the limits (incompressible 4-byte characters) loads and is indexed.
 */
test('an over-long name or category rejects its row; at the limits a row loads and the indexes are built', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'loader-text-limits-'));
  await generateCatalog({ outDir: dataDir, products: 60, seed: 14 });
  const productLines = (await readFile(join(dataDir, 'product.csv'), 'utf8')).split('\n').length - 1;
  const atLimit = { name: incompressibleText(NAME_MAX, 'name'), category: incompressibleText(CATEGORY_MAX, 'category') };
  await appendFile(
    join(dataDir, 'product.csv'),
    [
      `1001,${incompressibleText(NAME_MAX + 1, 'long-name')},x,y,Pants,10`, // canonical: checked as read
      `1002,"Long Category",x,y," ${incompressibleText(CATEGORY_MAX + 1, 'long-category')}",10`, // padded: repaired, then checked
      `1003,${atLimit.name},x,y,${atLimit.category},10`,
      '',
    ].join('\n'),
  );
  await appendFile(join(dataDir, 'features.csv'), '9001,1001,"Fabric","Canvas"\n9002,1003,"Fabric","Canvas"\n');

  const databaseUrl = await createTestDatabase('loader_text_limits');
  const report = await loadCatalog({ databaseUrl, dataDir, logger: pino({ level: 'silent' }) });
  assert.equal(report.outcome, 'swapped');

  const rejects = (await readFile(report.rejectsFile, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RejectedRecord);
  assert.deepEqual(
    rejects.map(({ file, line, reason, detail }) => ({ file, line, reason, detail })),
    [
      {
        file: 'product.csv',
        line: productLines + 1,
        reason: 'text too long',
        detail: `name has ${NAME_MAX + 1} characters, at most ${NAME_MAX} fit the storefront indexes`,
      },
      {
        file: 'product.csv',
        line: productLines + 2,
        reason: 'text too long',
        detail: `category has ${CATEGORY_MAX + 1} characters, at most ${CATEGORY_MAX} fit the storefront indexes`,
      },
      {
        file: 'features.csv',
        line: report.files[1]!.lines.read - 1,
        reason: 'orphan product_id',
        detail: 'product_id 1001 matches no loaded products row',
      },
    ],
  );
  assert.deepEqual(report.files[0]!.rejectedByReason, { 'text too long': 2 });

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT id::int, name, category FROM catalog.products WHERE id > 1000');
    assert.deepEqual(rows, [{ id: 1003, ...atLimit }]);
    const indexes = await client.query<{ count: number }>(`SELECT count(*)::int AS count FROM pg_indexes WHERE schemaname = 'catalog'`);
    const built = (await readConstraintStatements()).filter((statement) => /^CREATE INDEX|PRIMARY KEY/.test(statement)).length;
    assert.equal(indexes.rows[0]!.count, built, 'every index and primary key of constraints.sql is built');
    const sorted = await client.query('SELECT id::int FROM catalog.products WHERE category = $1 ORDER BY name, id', [atLimit.category]);
    assert.deepEqual(sorted.rows, [{ id: 1003 }]);
  } finally {
    await client.end();
  }
});
