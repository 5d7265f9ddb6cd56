import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { addCatalogConstraints, createCatalogSchema, PRODUCT_TEXT_MAX_LENGTH } from '@catalog/contract';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { incompressibleText } from '../../scripts/test/incompressible-text.js';

const { name: NAME_MAX, category: CATEGORY_MAX } = PRODUCT_TEXT_MAX_LENGTH;

/** Worst-case products: name and category at their limits in incompressible 4-byte characters. */
function worstCaseRows(seed: string): Array<[string, string | null]> {
  return [
    [incompressibleText(NAME_MAX, `${seed}-name`), incompressibleText(CATEGORY_MAX, `${seed}-category`)],
    [incompressibleText(NAME_MAX, `${seed}-alone`), null],
  ];
}

const INSERT = 'INSERT INTO products (name, category) VALUES ($1, $2)';

test('the longest name and category fit every index that holds them, built before or after the rows', async () => {
  const client = new pg.Client({ connectionString: await createTestDatabase('text_limits') });
  await client.connect();
  try {
    await client.query('BEGIN');
    await createCatalogSchema(client, 'built', { withConstraints: true });
    for (const row of worstCaseRows('built')) await client.query(INSERT, row);
    await client.query('COMMIT');

    // The loader's order: rows first, then keys and indexes.
    await client.query('BEGIN');
    await createCatalogSchema(client, 'loaded', { withConstraints: false });
    for (const row of worstCaseRows('loaded')) await client.query(INSERT, row);
    await client.query('COMMIT');
    await addCatalogConstraints(client, 'loaded');

    for (const schema of ['built', 'loaded']) {
      const { rows } = await client.query<{ name_bytes: number; stored_bytes: number; words: number }>(
        `SELECT octet_length(name) AS name_bytes, pg_column_size(name) AS stored_bytes,
                length(to_tsvector('simple', name)) AS words
           FROM ${schema}.products ORDER BY id`,
      );
      for (const row of rows) {
        assert.equal(row.name_bytes, 4 * NAME_MAX, schema);
        assert.ok(row.stored_bytes >= row.name_bytes, `${schema}: the name was stored uncompressed (${row.stored_bytes} bytes)`);
        assert.equal(row.words, 1, `${schema}: the name is one word of the full-text index`);
      }
      const [byName] = await client
        .query(`SELECT count(*)::int AS found FROM ${schema}.products WHERE name = $1 AND category = $2`, worstCaseRows(schema)[0]!)
        .then((result) => result.rows);
      assert.deepEqual(byName, { found: 1 });
    }
  } finally {
    await client.end();
  }
});
