import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { CAPTURE_ORIGIN_SETTING, CHANGE_LOG_TABLE, GATEWAY_ORIGIN, SERVING_SCHEMA } from '@catalog/contract';
import { scrapeMetrics } from '../../scripts/test/metrics.js';
import { waitFor } from '../../scripts/test/wait.js';
import { waitForIdleDatabase } from './bench-postgres.js';
import { processTreeCpuSeconds } from './cpu-usage.js';
import { findPgbench, pgbenchSummary } from './postgres-ceiling.js';
import type { IdRange } from './plans.js';
import type { GatewayProcess } from './targets/gateway.js';

/**
 * The capture triggers' cost per change (contract/sql/capture.sql): the same UPDATE statements,
 * prepared, on `clients` pgbench connections, with the capture triggers disabled, enabled, and
 * enabled on sessions that say they are a gateway's (the triggers fire, and return at once: what
 * a gateway's own writes pay). The modes take turns in rounds (off, on, origin; on, origin, off;
 * …), so each sees the same share of whatever else the machine does.
 */
export const CAPTURE_MODES = ['capture off', 'capture on', 'capture on, gateway origin'] as const;
export type CaptureMode = (typeof CAPTURE_MODES)[number];

/** The tables the triggers are on (capture-triggers.sql) and the triggers' names. */
const CAPTURED_TABLES = ['products', 'features', 'styles', 'related', 'photos', 'skus'] as const;
const CAPTURE_TRIGGERS = ['capture_insert', 'capture_update', 'capture_delete', 'capture_truncate'] as const;
/** How long the gateways may take to claim and purge what a round captured before the run fails. */
const DRAIN_LIMIT_MS = 120_000;
/** What the gateways' change-log followers call their connection (change-capture.ts). */
const CAPTURE_APPLICATION_NAME = 'catalog-gateway-capture';

export interface CostCell {
  /** `one row` or `<n> rows`: the products one statement updates. */
  statement: string;
  rowsPerStatement: number;
  mode: CaptureMode;
  statements: number;
  seconds: number;
  statementsPerSecond: number;
  /**
   * CPU per statement over the round and the drain after it (until the change log was empty and
   * the purge queues too): Postgres (every backend: the statements, the triggers, the gateways'
   * claims), of which the gateways' capture connections (woken by a NOTIFY or a poll, claiming and
   * deleting entries), both gateways, Redis and Varnish.
   */
  cpuMicrosPerStatement: { postgres: number; claims: number; gateways: number; redis: number; varnish: number };
  /** From the round's end until the gateways had claimed and purged everything it captured. */
  drainMs: number;
  /** Highest 1-minute load average seen as the round started. */
  machineLoad: number;
}

export interface CostSettings {
  databaseUrl: string;
  productIds: IdRange;
  clients: number;
  rounds: number;
  roundSeconds: number;
  /** Rows of the multi-row statement. */
  batchRows: number;
  /** Processes whose CPU a statement is charged with. */
  pids: { postgres: number; gateways: number[]; redis: number; varnish: number | undefined };
  gateways: readonly GatewayProcess[];
  workDir: string;
  log: (message: string) => void;
}

/** One pgbench script per statement shape; each client updates ids of its own slice, so no two wait on a row lock. */
function scripts(ids: IdRange, clients: number, batchRows: number) {
  const slice = Math.floor((ids.max - ids.min + 1) / clients);
  if (slice < batchRows) throw new Error(`${clients} clients × ${batchRows} rows need more than ${ids.max - ids.min + 1} products`);
  const table = `${SERVING_SCHEMA}.products`;
  // A new slogan every time, as a sync job's would be (no index covers it: a HOT update).
  return [
    {
      statement: 'one row',
      rows: 1,
      text: [
        `\\set id ${ids.min} + :client_id * ${slice} + random(0, ${slice - 1})`,
        `\\set v random(1, 1000000000)`,
        `UPDATE ${table} SET slogan = :v::text WHERE id = :id;`,
      ],
    },
    {
      statement: `${batchRows} rows`,
      rows: batchRows,
      text: [
        `\\set first ${ids.min} + :client_id * ${slice} + random(0, ${slice - batchRows})`,
        `\\set v random(1, 1000000000)`,
        `UPDATE ${table} SET slogan = :v::text WHERE id BETWEEN :first AND :first + ${batchRows - 1};`,
      ],
    },
  ];
}

/** Enables or disables every capture trigger. */
async function setTriggers(databaseUrl: string, enabled: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const table of CAPTURED_TABLES) {
      for (const trigger of CAPTURE_TRIGGERS) {
        await client.query(`ALTER TABLE ${SERVING_SCHEMA}.${table} ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
      }
    }
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/** The backends of the gateways' change-log followers (change-capture.ts names its connection so). */
async function captureBackends(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
      [CAPTURE_APPLICATION_NAME],
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/**
 * Every round starts from the same tables: without this, the dead rows of earlier rounds' updates
 * (and of the claimed, deleted log entries) would weigh on later rounds, whatever their mode.
 */
async function vacuum(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`VACUUM ${SERVING_SCHEMA}.products, ${CHANGE_LOG_TABLE}`);
  } finally {
    await client.end();
  }
}

/** Waits until the change log is empty and no gateway has a purge waiting; returns how long it took. */
async function drained(databaseUrl: string, gateways: readonly GatewayProcess[]): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await waitFor(
      'the gateways to claim and purge every captured change',
      async () => {
        const { rows } = await client.query<{ waiting: number }>(`SELECT count(*)::int AS waiting FROM ${CHANGE_LOG_TABLE}`);
        if (rows[0]!.waiting > 0) return undefined;
        const queued = await Promise.all(
          gateways.map(async (gateway) => sumSeries(await scrapeMetrics(gateway), 'catalog_edge_purge_queue_tags')),
        );
        return queued.every((tags) => tags === 0) ? true : undefined;
      },
      DRAIN_LIMIT_MS,
      20,
    );
  } finally {
    await client.end();
  }
  return performance.now() - started;
}

/** The sum of every series of a metric (all label sets). */
function sumSeries(metrics: string, name: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

export async function measureCaptureCost(settings: CostSettings): Promise<CostCell[]> {
  const pgbench = findPgbench('the capture benchmark');
  await mkdir(settings.workDir, { recursive: true });
  const cells: CostCell[] = [];
  const cpu = (claimBackends: readonly number[]) => {
    const { pids } = settings;
    return {
      postgres: processTreeCpuSeconds(pids.postgres),
      claims: claimBackends.reduce((sum, pid) => sum + processTreeCpuSeconds(pid), 0),
      gateways: pids.gateways.reduce((sum, pid) => sum + processTreeCpuSeconds(pid), 0),
      redis: processTreeCpuSeconds(pids.redis),
      varnish: pids.varnish === undefined ? 0 : processTreeCpuSeconds(pids.varnish),
    };
  };
  let triggersOn = true;
  for (const shape of scripts(settings.productIds, settings.clients, settings.batchRows)) {
    const file = join(settings.workDir, `update-${shape.rows}.sql`);
    await writeFile(file, `${shape.text.join('\n')}\n`);
    for (let round = 0; round < settings.rounds; round += 1) {
      const order = CAPTURE_MODES.map((_, index) => CAPTURE_MODES[(index + round) % CAPTURE_MODES.length]!);
      for (const mode of order) {
        const wantOn = mode !== 'capture off';
        if (wantOn !== triggersOn) await setTriggers(settings.databaseUrl, wantOn);
        triggersOn = wantOn;
        await waitForIdleDatabase(settings.databaseUrl);
        await vacuum(settings.databaseUrl);
        const machineLoad = loadavg()[0]!;
        const claimBackends = await captureBackends(settings.databaseUrl);
        const before = cpu(claimBackends);
        const env = {
          ...process.env,
          ...(mode === 'capture on, gateway origin' ? { PGOPTIONS: `-c ${CAPTURE_ORIGIN_SETTING}=${GATEWAY_ORIGIN}` } : {}),
        };
        const args = ['-n', '-M', 'prepared', '-c', String(settings.clients), '-j', '1', '-T', String(settings.roundSeconds), '-f', file];
        const { stdout } = await promisify(execFile)(pgbench, [...args, settings.databaseUrl], { env, maxBuffer: 1 << 20 });
        const result = pgbenchSummary(stdout);
        if (result.errors > 0) throw new Error(`pgbench: ${result.errors} statements failed (${shape.statement}, ${mode})\n${stdout}`);
        const drainMs = await drained(settings.databaseUrl, settings.gateways);
        const after = cpu(claimBackends);
        const per = (key: keyof typeof before) => ((after[key] - before[key]) * 1e6) / result.requests;
        cells.push({
          statement: shape.statement,
          rowsPerStatement: shape.rows,
          mode,
          statements: result.requests,
          seconds: result.seconds,
          statementsPerSecond: result.rps,
          cpuMicrosPerStatement: {
            postgres: per('postgres'),
            claims: per('claims'),
            gateways: per('gateways'),
            redis: per('redis'),
            varnish: per('varnish'),
          },
          drainMs,
          machineLoad,
        });
        settings.log(
          `${shape.statement}, ${mode}, round ${round + 1}: ${Math.round(result.rps)} statements/s, ` +
            `Postgres ${per('postgres').toFixed(0)} µs/statement (claims ${per('claims').toFixed(0)}), gateways ${per('gateways').toFixed(0)} µs, drained in ${drainMs.toFixed(0)} ms`,
        );
      }
    }
  }
  if (!triggersOn) await setTriggers(settings.databaseUrl, true);
  return cells;
}

/** The rounds of one statement shape and mode pooled: their statements over their time, their CPU over their statements. */
export function pooledCost(cells: readonly CostCell[], statement: string, mode: CaptureMode) {
  const found = cells.filter((cell) => cell.statement === statement && cell.mode === mode);
  const statements = found.reduce((sum, cell) => sum + cell.statements, 0);
  const weighted = (key: keyof CostCell['cpuMicrosPerStatement']) =>
    found.reduce((sum, cell) => sum + cell.cpuMicrosPerStatement[key] * cell.statements, 0) / statements;
  return {
    statements,
    statementsPerSecond: statements / found.reduce((sum, cell) => sum + cell.seconds, 0),
    cpuMicrosPerStatement: {
      postgres: weighted('postgres'),
      claims: weighted('claims'),
      gateways: weighted('gateways'),
      redis: weighted('redis'),
      varnish: weighted('varnish'),
    },
    drainMs: Math.max(...found.map((cell) => cell.drainMs)),
    machineLoad: Math.max(...found.map((cell) => cell.machineLoad)),
  };
}
