/**
 * `npm run bench -- chaos`: two gateway replicas under steady load (loopback, bounded) while
 * their dependencies fail in turn — Postgres stopped, Postgres frozen (SIGSTOP), Redis killed,
 * Redis frozen — and then 3× the load on a replica with a 2-connection pool. Per phase it prints
 * requests by status, p99, hung requests (no answer in 5 s: must be 0), seconds until cache
 * misses are served again after the fault ends, and invalidations lost (writes made through one
 * replica during the phase that the other still does not serve afterwards: must be 0).
 * A benchmark, not a test: it prints what it saw and fails only if a replica dies.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import { startPostgres, type PostgresServer } from '../../scripts/test/postgres.js';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import { startGateway } from './targets/gateway.js';
import type { ServerProcess } from './targets/server-process.js';

const PRODUCTS = 2_000;
const CONCURRENCY = 16;
const HUNG_AFTER_MS = 5_000;
const FAULT_SECONDS = 4;
const WRITE_TOKEN = 'chaos-write-token-0123456789';
const ROUTES = ['', '/styles', '/related'];

interface Outcome {
  issuedAt: number;
  status: number | 'hung' | 'error';
  ms: number;
}

interface PhaseReport {
  phase: string;
  byStatus: Record<string, number>;
  p99Ms: number;
  hung: number;
  recoverySeconds: number | null;
  writes: number;
  invalidationsLost: number;
}

const log = (message: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}`);
let nonce = 0;

/** Requests cache misses (a unique query string each) until `until` says stop. */
async function drive(baseUrl: string, concurrency: number, stop: { done: boolean }, outcomes: Outcome[]): Promise<void> {
  const worker = async () => {
    while (!stop.done) {
      const id = 1 + Math.floor(Math.random() * PRODUCTS);
      const url = `${baseUrl}/products/${id}${ROUTES[nonce % ROUTES.length]}?n=${(nonce += 1)}`;
      const issuedAt = performance.now();
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(HUNG_AFTER_MS) });
        await response.arrayBuffer();
        outcomes.push({ issuedAt, status: response.status, ms: performance.now() - issuedAt });
      } catch (error) {
        const hung = (error as Error).name === 'TimeoutError';
        outcomes.push({ issuedAt, status: hung ? 'hung' : 'error', ms: performance.now() - issuedAt });
        if (!hung) await sleep(10);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Writes product slogans through `writer` every 250 ms; returns what each product should now say. */
async function writeLoop(writer: string, phase: string, stop: { done: boolean }, expected: Map<number, string>): Promise<number> {
  let accepted = 0;
  for (let index = 0; !stop.done; index += 1) {
    const id = 1 + (index % 20);
    const slogan = `${phase} write ${index}`;
    const response = await fetch(`${writer}/products/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${WRITE_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ slogan }),
      signal: AbortSignal.timeout(HUNG_AFTER_MS),
    }).catch(() => undefined);
    if (response?.status === 200) {
      expected.set(id, slogan);
      accepted += 1;
    }
    await sleep(250);
  }
  return accepted;
}

/** Products whose last accepted write the reader does not serve. */
async function lostInvalidations(reader: string, expected: Map<number, string>): Promise<number> {
  let lost = 0;
  for (const [id, slogan] of expected) {
    const served = (await (await fetch(`${reader}/products/${id}`)).json()) as { slogan?: string };
    if (served.slogan !== slogan) lost += 1;
  }
  return lost;
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

async function runPhase(
  phase: string,
  target: ServerProcess,
  reader: ServerProcess,
  concurrency: number,
  fault: { start: () => Promise<void> | void; end: () => Promise<void> | void } | undefined,
): Promise<PhaseReport> {
  log(`phase: ${phase}`);
  const outcomes: Outcome[] = [];
  const expected = new Map<number, string>();
  const stop = { done: false };
  const load = drive(target.baseUrl, concurrency, stop, outcomes);
  const writes = writeLoop(target.baseUrl, phase.replaceAll(' ', '-'), stop, expected);
  await sleep(1_000);
  await fault?.start();
  await sleep(FAULT_SECONDS * 1_000);
  await fault?.end();
  const restoredAt = performance.now();
  await sleep(4_000);
  stop.done = true;
  await load;
  const accepted = await writes;
  // Give the invalidation retries and generation checks their seconds, then compare.
  await sleep(3_000);
  target.assertAlive();
  reader.assertAlive();
  const byStatus: Record<string, number> = {};
  for (const { status } of outcomes) byStatus[status] = (byStatus[status] ?? 0) + 1;
  const firstServed = outcomes.filter((o) => o.status === 200 && o.issuedAt >= restoredAt).sort((a, b) => a.issuedAt - b.issuedAt)[0];
  return {
    phase,
    byStatus,
    p99Ms: Math.round(
      percentile(
        outcomes.map((o) => o.ms),
        0.99,
      ),
    ),
    hung: byStatus.hung ?? 0,
    recoverySeconds: fault ? (firstServed ? Number(((firstServed.issuedAt + firstServed.ms - restoredAt) / 1_000).toFixed(2)) : null) : 0,
    writes: accepted,
    invalidationsLost: await lostInvalidations(reader.baseUrl, expected),
  };
}

const cleanups: Array<() => Promise<void>> = [];
let exitCode = 0;
try {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-chaos-'));
  const logDir = join(dir, 'logs');
  await mkdir(logDir);
  const postgres: PostgresServer = await startPostgres();
  cleanups.push(() => postgres.destroy());
  const databaseUrl = await postgres.createDatabase('chaos');
  await generateCatalog({ outDir: join(dir, 'catalog'), products: PRODUCTS, seed: 7 });
  await loadCatalog({ databaseUrl, dataDir: join(dir, 'catalog'), logger: pino({ level: 'silent' }) });
  const redis: RedisServer = await startRedis();
  cleanups.push(() => redis.stop());
  const settings = { databaseUrl, redisUrl: redis.url, logLevel: 'warn', logDir };
  const env = { WRITE_TOKEN, DB_STATEMENT_TIMEOUT_MS: '1000', DB_POOL_ACQUIRE_TIMEOUT_MS: '1000' };
  const [a, b] = await Promise.all([
    startGateway({ ...settings, name: 'replica-a', env }),
    startGateway({ ...settings, name: 'replica-b', env }),
  ]);
  cleanups.push(
    () => a.stop(),
    () => b.stop(),
  );
  const small = await startGateway({ ...settings, name: 'small-pool', env: { ...env, DB_POOL_MAX: '2' } });
  cleanups.push(() => small.stop());

  const reports = [
    await runPhase('baseline', a, b, CONCURRENCY, undefined),
    await runPhase('postgres stopped', a, b, CONCURRENCY, { start: () => postgres.stop(), end: () => postgres.start() }),
    await runPhase('postgres frozen', a, b, CONCURRENCY, { start: () => postgres.freeze(), end: () => postgres.thaw() }),
    await runPhase('redis killed', a, b, CONCURRENCY, { start: () => redis.stop(), end: () => redis.start() }),
    await runPhase('redis frozen', a, b, CONCURRENCY, { start: () => redis.freeze(), end: () => redis.thaw() }),
    await runPhase('3x load, pool of 2', small, b, CONCURRENCY * 3, undefined),
  ];
  console.log('\n| phase | requests by status | p99 | hung (no answer in 5 s) | seconds to recover | writes | invalidations lost |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of reports) {
    const statuses = Object.entries(r.byStatus)
      .sort()
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    console.log(
      `| ${r.phase} | ${statuses} | ${r.p99Ms} ms | ${r.hung} | ${r.recoverySeconds ?? 'never'} | ${r.writes} | ${r.invalidationsLost} |`,
    );
  }
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}
process.exit(exitCode);
