import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CAPTURE_ORIGIN_SETTING, CHANGE_LOG_TABLE, createCatalogSchema, GATEWAY_ORIGIN, installChangeCapture } from '@catalog/contract';
import { listenForCaptureNotifications } from '../../scripts/test/capture-notifications.js';
import { createTestDatabase } from '../../scripts/test/postgres.js';

interface Entry {
  product_ids: number[];
  list_changed: boolean;
  everything: string | null;
}

/**
 * The capture triggers on a real Postgres: what each statement on each catalog table records in
 * the change log, in the tags' terms of gateway/src/events/change-tags.ts (products touched, and
 * whether list positions may have moved).
 */
describe('change capture: the triggers record each statement on the catalog tables', () => {
  let client: pg.Client;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createTestDatabase('capture');
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    await createCatalogSchema(client, 'catalog', { withConstraints: true });
    await installChangeCapture(client, 'catalog');
    await client.query('COMMIT');
    await client.query(`SET search_path TO catalog`);
    await client.query(
      `INSERT INTO products (id, name, category, default_price) SELECT id, 'P' || id, 'Kicks', 10 FROM generate_series(1, 5) id`,
    );
    await client.query(`INSERT INTO styles (id, product_id, name) VALUES (1, 1, 'Red'), (2, 2, 'Blue'), (3, 2, 'Green')`);
    await client.query(`INSERT INTO skus (id, style_id, size, quantity) VALUES (1, 1, 'S', 1), (2, 3, 'M', 2)`);
    await client.query(`INSERT INTO photos (id, style_id, url) VALUES (1, 2, 'u')`);
    await client.query(`INSERT INTO features (product_id, feature) VALUES (4, 'Fabric')`);
    await client.query(`INSERT INTO related (product_id, related_product_id) VALUES (5, 1)`);
  });
  after(() => client.end());

  /** The entries `sql` records (in order), the log emptied before. */
  async function recorded(sql: string): Promise<Entry[]> {
    await client.query(`DELETE FROM ${CHANGE_LOG_TABLE}`);
    await client.query(sql);
    const { rows } = await client.query<{ product_ids: string[]; list_changed: boolean; everything: string | null }>(
      `SELECT product_ids, list_changed, everything FROM ${CHANGE_LOG_TABLE} ORDER BY id`,
    );
    return rows.map((row) => ({ ...row, product_ids: row.product_ids.map(Number).sort((a, b) => a - b) }));
  }
  const entry = (productIds: number[], listChanged: boolean): Entry => ({
    product_ids: productIds,
    list_changed: listChanged,
    everything: null,
  });

  it('products: a field no list shows names the product; a listed field, an insert or a delete moves lists too', async () => {
    assert.deepEqual(await recorded(`UPDATE products SET slogan = 'new' WHERE id IN (1, 2)`), [entry([1, 2], false)]);
    assert.deepEqual(await recorded(`UPDATE products SET default_price = default_price + 1 WHERE id = 3`), [entry([3], true)]);
    assert.deepEqual(await recorded(`UPDATE products SET name = name WHERE id = 3`), [entry([3], false)]);
    assert.deepEqual(await recorded(`INSERT INTO products (id, name) VALUES (6, 'Six')`), [entry([6], true)]);
    assert.deepEqual(await recorded(`DELETE FROM products WHERE id = 6`), [entry([6], true)]);
    assert.deepEqual(await recorded(`UPDATE products SET slogan = 'none' WHERE id = 999`), []);
  });

  it('child tables name the product they belong to, skus and photos through their style', async () => {
    assert.deepEqual(await recorded(`UPDATE styles SET name = 'Crimson' WHERE id = 1`), [entry([1], false)]);
    assert.deepEqual(await recorded(`UPDATE skus SET quantity = 0`), [entry([1, 2], false)]);
    assert.deepEqual(await recorded(`DELETE FROM photos WHERE id = 1`), [entry([2], false)]);
    assert.deepEqual(await recorded(`INSERT INTO features (product_id, feature) VALUES (3, 'Sole')`), [entry([3], false)]);
    assert.deepEqual(await recorded(`UPDATE related SET product_id = 4 WHERE product_id = 5`), [entry([4, 5], false)]);
    // A style moved to another product: both.
    assert.deepEqual(await recorded(`UPDATE styles SET product_id = 3 WHERE id = 3`), [entry([2, 3], false)]);
  });

  it('a cascade records the product deleted and the children it took with it', async () => {
    const entries = await recorded(`DELETE FROM products WHERE id = 1`);
    assert.deepEqual(entries[0], entry([1], true));
    // The cascaded styles, skus and related rows: product 1, and product 4, whose related row
    // (moved there above) pointed at it and is gone with it. Nothing else.
    const named = new Set(entries.flatMap((recordedEntry) => recordedEntry.product_ids));
    assert.deepEqual([...named].sort(), [1, 4]);
  });

  it("a gateway's session records nothing: the gateway announces its own writes", async () => {
    await client.query(`SET ${CAPTURE_ORIGIN_SETTING} = '${GATEWAY_ORIGIN}'`);
    try {
      assert.deepEqual(await recorded(`UPDATE products SET slogan = 'through the gateway' WHERE id = 2`), []);
    } finally {
      await client.query(`RESET ${CAPTURE_ORIGIN_SETTING}`);
    }
  });

  it('a statement notifies only when it found no older entry waiting: a claimer is woken once for a run of them', async () => {
    const notifications = await listenForCaptureNotifications(databaseUrl);
    const received = () => notifications.received();
    try {
      await client.query(`DELETE FROM ${CHANGE_LOG_TABLE}`);
      await client.query(`UPDATE products SET slogan = 'first' WHERE id = 2`);
      assert.equal(await received(), 1, 'a statement on an empty log sent no NOTIFY');
      for (let statement = 1; statement <= 10; statement += 1) {
        await client.query(`UPDATE products SET slogan = $1 WHERE id = 2`, [`behind the first ${statement}`]);
      }
      assert.equal(await received(), 1, 'statements made while an older entry waited sent a NOTIFY');
      // Claimed and deleted (as a gateway does): the next statement wakes a claimer again.
      await client.query(`DELETE FROM ${CHANGE_LOG_TABLE}`);
      await client.query(`UPDATE products SET slogan = 'after the claim' WHERE id = 2`);
      assert.equal(await received(), 2, 'a statement on an emptied log sent no NOTIFY');
    } finally {
      await notifications.close();
    }
  });

  it('a TRUNCATE, a statement over 10,000 products and a full log each become one entry for everything', async () => {
    const [truncated] = await recorded(`TRUNCATE related`);
    assert.match(truncated!.everything ?? '', /TRUNCATE of related/);
    const [bulk] = await recorded(`INSERT INTO products (id, name) SELECT id, 'Bulk' FROM generate_series(100, 10100) id`);
    assert.match(bulk!.everything ?? '', /one statement changed 10001 products/);
    await client.query(`SET catalog_capture.log_cap = 10`);
    try {
      const entries = await recorded(
        `DO $$ BEGIN FOR i IN 1..25 LOOP UPDATE catalog.products SET slogan = i::text WHERE id = 2; END LOOP; END $$`,
      );
      assert.ok(entries.length <= 10, `${entries.length} entries kept with a cap of 10`);
      assert.ok(
        entries.some((kept) => /overflowed/.test(kept.everything ?? '')),
        'no entry says the log overflowed',
      );
    } finally {
      await client.query(`RESET catalog_capture.log_cap`);
    }
  });
});
