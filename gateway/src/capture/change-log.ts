import type pg from 'pg';
import { CHANGE_LOG_TABLE } from '@catalog/contract';
import { parseLsn, type Lsn } from '../db/lsn.js';
import type { CatalogChange } from '../events/catalog-events.js';

/** Entries claimed per transaction. */
export const CLAIM_BATCH = 500;
/**
 * Most products a claim announces (an entry naming more is claimed alone): announcing takes a
 * confirm and its acknowledgements per PRODUCTS_PER_ANNOUNCEMENT, one after another, and must end
 * well within CLAIM_IDLE_TIMEOUT_MS, or Postgres ends the claim and the same entries are claimed,
 * and announced, again. A claimer woken once for a run of statements (sql/capture.sql) finds
 * more waiting than one woken for each.
 */
export const PRODUCTS_PER_CLAIM = 5_000;
/** Most products announced at once (one Redis script call names each one's keys). */
const PRODUCTS_PER_ANNOUNCEMENT = 1_000;

/** What a batch of claimed entries asks to be announced. */
export type ClaimedChanges =
  | { kind: 'changes'; changes: CatalogChange[] }
  /** Something too large to name (the log overflowed, a TRUNCATE, a bulk statement): invalidate everything. */
  | { kind: 'everything'; reason: string };

export interface ClaimedBatch {
  claimed: ClaimedChanges;
  /** Entries in the batch. */
  entries: number;
  /** The primary's WAL insert position read after every claimed entry was visible: it bounds their commits. */
  lsn: Lsn;
  /** Per entry, seconds from its statement's end to its claim, by the primary's clock. */
  waitedSeconds: number[];
}

interface EntryRow {
  id: string;
  /** bigint[]: node-pg hands int8 elements over as text. */
  product_ids: string[];
  list_changed: boolean;
  everything: string | null;
  waited_seconds: number;
  lsn: string;
}

/**
 * Claims waiting entries of the change log (sql/capture.sql in the contract), at most
 * CLAIM_BATCH of them naming at most PRODUCTS_PER_CLAIM products, in a transaction, hands them to
 * `announce`, and deletes them only once it resolved: a gateway that fails or dies in between
 * leaves them for the next claim (its own or another gateway's), so a change may be announced
 * twice but is never lost. FOR UPDATE SKIP LOCKED: concurrent gateways claim disjoint entries,
 * so each change is announced once for the fleet. Returns how many entries it claimed (0: none
 * waiting, or all claimed by others).
 */
export async function claimChanges(client: pg.Client, announce: (batch: ClaimedBatch) => Promise<void>): Promise<number> {
  await client.query('BEGIN');
  try {
    // The insert position is read after the snapshot saw the entries committed, so every
    // commit record among them lies below it (even under synchronous_commit = off). Entries
    // locked past the products' bound are let go at the commit, for the next claim.
    const { rows } = await client.query<EntryRow>(
      `WITH locked AS MATERIALIZED (
         SELECT id, product_ids, list_changed, everything, recorded_at
           FROM ${CHANGE_LOG_TABLE} ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
       ), counted AS (
         SELECT *, sum(cardinality(product_ids)) OVER (ORDER BY id) AS products_so_far FROM locked
       )
       SELECT id, product_ids, list_changed, everything,
              extract(epoch FROM clock_timestamp() - recorded_at)::float8 AS waited_seconds,
              pg_current_wal_insert_lsn()::text AS lsn
         FROM counted
        WHERE products_so_far <= $2 OR id = (SELECT min(id) FROM locked)
        ORDER BY id`,
      [CLAIM_BATCH, PRODUCTS_PER_CLAIM],
    );
    if (rows.length > 0) {
      await announce({
        claimed: claimedChanges(rows),
        entries: rows.length,
        lsn: parseLsn(rows[rows.length - 1]!.lsn),
        waitedSeconds: rows.map((row) => row.waited_seconds),
      });
      await client.query(`DELETE FROM ${CHANGE_LOG_TABLE} WHERE id = ANY($1::bigint[])`, [rows.map((row) => row.id)]);
    }
    await client.query('COMMIT');
    return rows.length;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * Claims batches (claimChanges) one after another until one comes back empty, or until
 * `stopped` says so; returns how many entries it claimed in all. Not until a batch comes back
 * short: a statement that found an older entry waiting sent no NOTIFY (sql/capture.sql in the
 * contract), so an entry committed while this run announces is this run's to take.
 */
export async function claimWaiting(
  client: pg.Client,
  announce: (batch: ClaimedBatch) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<number> {
  let claimed = 0;
  for (;;) {
    const entries = await claimChanges(client, announce);
    claimed += entries;
    if (entries === 0 || stopped()) return claimed;
  }
}

/**
 * Whether any entry waits in the log (claimed by another gateway or not), in one statement
 * outside a transaction: what a poll costs while nothing changes.
 */
export async function anyWaiting(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ waiting: boolean }>(`SELECT EXISTS (SELECT FROM ${CHANGE_LOG_TABLE}) AS waiting`);
  return rows[0]!.waiting;
}

/**
 * The entries as announcements: everything if any entry says so (a new epoch voids all the
 * others too), else their products in groups, each listing its products and whether a list moved.
 * Announcing committed changes commutes, so entries of the batch need no order among them.
 */
function claimedChanges(rows: readonly EntryRow[]): ClaimedChanges {
  const everything = rows.find((row) => row.everything !== null);
  if (everything) return { kind: 'everything', reason: everything.everything! };
  const changes: CatalogChange[] = [];
  let current = { productIds: new Set<number>(), listChanged: false };
  const flush = () => {
    if (current.productIds.size > 0) changes.push({ productIds: [...current.productIds], listChanged: current.listChanged });
    current = { productIds: new Set(), listChanged: false };
  };
  for (const row of rows) {
    if (current.productIds.size + row.product_ids.length > PRODUCTS_PER_ANNOUNCEMENT) flush();
    for (const id of row.product_ids) current.productIds.add(Number(id));
    current.listChanged ||= row.list_changed;
  }
  flush();
  return { kind: 'changes', changes };
}
