import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createCatalogSchema } from '@catalog/contract';
import { createTestDatabase } from '../../scripts/test/postgres.js';

test('the catalog schema applies to a real Postgres with its keys and indexes', async () => {
  const client = new pg.Client({ connectionString: await createTestDatabase('schema') });
  await client.connect();
  try {
    await client.query('BEGIN');
    await createCatalogSchema(client, 'catalog', { withConstraints: true });
    await client.query('COMMIT');
    const { rows } = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'catalog' ORDER BY 1`,
    );
    assert.deepEqual(
      rows.map((row) => row.table_name),
      ['features', 'photos', 'products', 'related', 'skus', 'styles'],
    );
    const inserted = await client.query(
      `INSERT INTO catalog.products (name, default_price) VALUES ('Camo Onesie', 140) RETURNING default_price::text, campus`,
    );
    assert.deepEqual(inserted.rows[0], { default_price: '140.00', campus: 'hr-rfp' });
    await assert.rejects(client.query(`INSERT INTO catalog.styles (product_id, name) VALUES (999, 'orphan')`), /foreign key/);
  } finally {
    await client.end();
  }
});
