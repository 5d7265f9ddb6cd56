import type pg from 'pg';
import { CHANGE_LOG_TABLE } from '@catalog/contract';
import { onTimeline, timelineOf, type Lsn } from '../db/lsn.js';
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
  /** The WAL file `lsn` is in: it names the primary's timeline. */
  wal_file: string;
}

const positionOf = (row: EntryRow): Lsn => onTimeline(timelineOf(row.wal_file), row.lsn);

/**
 * Locks the oldest entries no other claim holds, as many as fit the products' bound (at least
 * one), and reads them. Entries past the bound are never kept locked: one would wait for this
 * claim's announcement, then for its own, twice the time the bound allows. So the free entries
 * are found by locking them under a savepoint, which is rolled back (letting them all go) before
 * those within the bound are locked again; one another claim took in between is skipped. The
 * insert position is read after the snapshot saw the entries committed, so every commit record
 * among them lies below it (even under synchronous_commit = off).
 */
async function lockWithinBound(client: pg.Client): Promise<EntryRow[]> {
  await client.query('SAVEPOINT finding_free_entries');
  const { rows: free } = await client.query<{ id: string; products: number }>(
    `SELECT id, cardinality(product_ids) AS products FROM ${CHANGE_LOG_TABLE} ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [CLAIM_BATCH],
  );
  await client.query('ROLLBACK TO SAVEPOINT finding_free_entries');
  const chosen: string[] = [];
  let products = 0;
  for (const entry of free) {
    products += entry.products;
    if (chosen.length > 0 && products > PRODUCTS_PER_CLAIM) break;
    chosen.push(entry.id);
  }
  if (chosen.length === 0) return [];
  const { rows } = await client.query<EntryRow>(
    `SELECT id, product_ids, list_changed, everything,
            extract(epoch FROM clock_timestamp() - recorded_at)::float8 AS waited_seconds,
            pg_current_wal_insert_lsn()::text AS lsn, pg_walfile_name(pg_current_wal_insert_lsn()) AS wal_file
       FROM ${CHANGE_LOG_TABLE} WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE SKIP LOCKED`,
    [chosen],
  );
  return rows;
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
    const rows = await lockWithinBound(client);
    if (rows.length > 0) {
      await announce({
        claimed: claimedChanges(rows),
        entries: rows.length,
        lsn: positionOf(rows[rows.length - 1]!),
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
