import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CHANGE_LOG_TABLE } from '@catalog/contract';
import { createTestDatabase } from '../../../scripts/test/postgres.js';
import { CAPTURE_BOUND_MS, CLAIM_EVERY_MS, CLAIM_IDLE_TIMEOUT_MS } from '../../src/capture/change-capture.js';
import { claimChanges, claimWaiting, PRODUCTS_PER_CLAIM, type ClaimedBatch } from '../../src/capture/change-log.js';
import { LEASE_MS } from '../../src/coherence/lease.js';
import { createCatalog } from '../support/gateway.js';

/**
 * One run of a gateway's claimer (capture/change-log.ts) on a real Postgres with the capture
 * triggers, no gateway: a statement that saw an older entry waiting sent no NOTIFY (rule 11), so
 * whatever commits while the run announces is the run's to take, not a later notification's.
 */
describe('claiming the change log', () => {
  let claimer: pg.Client;
  let writer: pg.Client;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createTestDatabase('claims');
    await createCatalog(databaseUrl, `INSERT INTO catalog.products (id, name) SELECT id, 'P' || id FROM generate_series(1, 5) id`);
    [claimer, writer] = [new pg.Client({ connectionString: databaseUrl }), new pg.Client({ connectionString: databaseUrl })];
    await Promise.all([claimer.connect(), writer.connect()]);
  });
  after(() => Promise.all([claimer?.end(), writer?.end()]));

  const productsOf = (batch: ClaimedBatch) =>
    batch.claimed.kind === 'changes' ? batch.claimed.changes.flatMap((change) => change.productIds).sort() : [];

  it('takes entries committed while it announced, until a claim comes back empty', async () => {
    await writer.query(`UPDATE catalog.products SET slogan = 'first' WHERE id = 1`);
    const announced: number[][] = [];
    const claimed = await claimWaiting(claimer, async (batch) => {
      announced.push(productsOf(batch));
      // Committed while the first batch is being announced: its statement saw that entry waiting.
      if (announced.length === 1) await writer.query(`UPDATE catalog.products SET slogan = 'meanwhile' WHERE id = 2`);
    });
    assert.deepEqual(announced, [[1], [2]], 'the entry committed during the run was left for a later claim');
    assert.equal(claimed, 2);
    const { rows } = await writer.query<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM ${CHANGE_LOG_TABLE}`);
    assert.equal(rows[0]!.waiting, 0);
  });

  it('keeps each claim to a few thousand products, so announcing one stays well inside the idle timeout', async () => {
    // Entries of 3,000, 3,000, 3,000, then 8,000, 1,000 and 1,000 products (bulk statements).
    const sizes = [3_000, 3_000, 3_000, 8_000, 1_000, 1_000];
    let first = 1;
    for (const size of sizes) {
      await writer.query(`INSERT INTO ${CHANGE_LOG_TABLE} (product_ids) SELECT array(SELECT generate_series($1::bigint, $2::bigint))`, [
        first,
        first + size - 1,
      ]);
      first += size;
    }
    const announced: number[] = [];
    const claimed = await claimWaiting(claimer, async (batch) => {
      announced.push(productsOf(batch).length);
    });
    assert.equal(claimed, sizes.length);
    // At most PRODUCTS_PER_CLAIM (5,000) products a claim, or one entry naming more, alone.
    assert.equal(PRODUCTS_PER_CLAIM, 5_000);
    assert.deepEqual(announced, [3_000, 3_000, 3_000, 8_000, 2_000]);
  });

  it("leaves the entries past its bound free while it announces: another gateway's claim takes them meanwhile", async () => {
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    try {
      // Two entries of 3,000 products: the first claim may take only the first.
      for (const first of [1, 3_001]) {
        await writer.query(`INSERT INTO ${CHANGE_LOG_TABLE} (product_ids) SELECT array(SELECT generate_series($1::bigint, $2::bigint))`, [
          first,
          first + 2_999,
        ]);
      }
      let meanwhile: number[] = [];
      await claimChanges(claimer, async (batch) => {
        assert.deepEqual(productsOf(batch).slice(0, 1), [1]);
        // While the first claim is being announced, another gateway's claim runs.
        await claimChanges(other, async (taken) => {
          meanwhile = productsOf(taken);
        });
      });
      assert.equal(meanwhile.length, 3_000, "the entry past the first claim's bound stayed locked until that claim ended");
      assert.equal(meanwhile[0], 3_001);
    } finally {
      await other.end();
    }
  });
});

describe("change capture's bound (gateway/README.md, rule 11)", () => {
  it('its worst case fits with room to spare: no NOTIFY, a poll, a frozen claim given back, a poll, a lease', () => {
    const worst = CLAIM_EVERY_MS + CLAIM_IDLE_TIMEOUT_MS + CLAIM_EVERY_MS + LEASE_MS;
    assert.ok(worst <= CAPTURE_BOUND_MS - 500, `${worst} ms leaves less than 500 ms of the ${CAPTURE_BOUND_MS} ms bound`);
  });
});
