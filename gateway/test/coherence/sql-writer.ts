// A writer that bypasses the gateways: it changes its products' slogans straight in Postgres, on
// a connection of its own, as a PIM sync or a DBA would. Its commits reach readers through
// change capture only (gateway/README.md, "Consistency", rule 11), so the checker holds them to
// the capture's bound: acknowledged at commit + CAPTURE_BOUND_MS.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { uniformInt, type Random } from '../../bench/random.js';
import { CAPTURE_BOUND_MS } from '../../src/capture/change-capture.js';
import { versionedSlogan } from './catalog.js';
import { now, type HistoryRecorder } from './history.js';

/** A SQL writer's pause between commits, like the gateway writers'. */
const WRITE_PAUSE_MS = [200, 600] as const;
/** Share of writes that are a transaction touching a child row too (a style of the product). */
const WITH_CHILD_ROW = 0.3;

export interface SqlWriterOptions {
  /** The primary. */
  databaseUrl: string;
  /** Names this run in every slogan it writes. */
  run: string;
  recorder: HistoryRecorder;
}

/** Writes `owned` products' slogans in SQL until `signal` aborts, recording each as `client`. */
export async function sqlWriter(
  client: string,
  owned: readonly number[],
  options: SqlWriterOptions,
  random: Random,
  signal: AbortSignal,
): Promise<void> {
  const versions = new Map(owned.map((product) => [product, 0]));
  let connection: pg.Client | undefined;
  while (!signal.aborted) {
    const product = owned[Math.floor(random() * owned.length)]!;
    const version = versions.get(product)! + 1;
    versions.set(product, version);
    const slogan = versionedSlogan(product, version, `${client} of ${options.run}`);
    const withChildRow = random() < WITH_CHILD_ROW;
    const start = now();
    let committed = false;
    try {
      connection ??= await connect(options.databaseUrl);
      if (withChildRow) {
        await connection.query('BEGIN');
        await connection.query(`UPDATE catalog.styles SET name = 'Plain' WHERE product_id = $1`, [product]);
      }
      await connection.query('UPDATE catalog.products SET slogan = $1, updated_at = now() WHERE id = $2', [slogan, product]);
      if (withChildRow) await connection.query('COMMIT');
      committed = true;
    } catch {
      // Whether it committed is unknown: its value is legal, never required.
      await connection?.end().catch(() => {});
      connection = undefined;
    }
    options.recorder.record({
      kind: 'write',
      client,
      gateway: 'postgres',
      label: withChildRow ? 'SQL transaction (style, product)' : 'SQL UPDATE',
      path: `UPDATE catalog.products ${product}`,
      start,
      end: now(),
      outcome: committed ? 'committed' : 'error',
      product,
      version,
      slogan,
      acknowledged: committed,
      visibleWithinMs: CAPTURE_BOUND_MS,
    });
    await sleep(uniformInt(random, WRITE_PAUSE_MS[0], WRITE_PAUSE_MS[1]));
  }
  await connection?.end().catch(() => {});
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'coherence-sql-writer' });
  client.on('error', () => {});
  await client.connect();
  return client;
}
