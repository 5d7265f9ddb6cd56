/**
 * `npm run bench -- chaos`: two gateway replicas under steady load (loopback, bounded) while
 * their dependencies fail in turn — Postgres stopped, Postgres frozen (SIGSTOP), Redis evicting
 * under memory pressure, Redis killed and restarted empty, Redis frozen — and then 3× the load on
 * a replica with a 2-connection pool. Beside the load of cache misses, the coherence test's
 * clients (gateway/test/coherence/) write and read through both replicas, and its checker judges
 * their history. Per phase it prints requests by status, p99, hung requests (no answer in 5 s:
 * must be 0), seconds until cache misses are served again after the fault ends, writes, stale
 * reads (a read that returned data older than a write acknowledged before it began: must be 0)
 * and invalidations lost (products the other replica still serves older than their last
 * acknowledged write 3 s after the phase: must be 0).
 * A benchmark, not a test: it prints what it saw and fails only if a replica dies or a fault it
 * injects cannot be shown to have happened.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import { startPostgres, type PostgresServer } from '../../scripts/test/postgres.js';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import { currentSlogans } from '../test/coherence/catalog.js';
import { checkHistory, formatImpossibleRead } from '../test/coherence/checker.js';
import { injectFault, type FaultKind, type FaultRecord } from '../test/coherence/faults.js';
import { HistoryRecorder } from '../test/coherence/history.js';
import { readBack, runWorkload, type Endpoint } from '../test/coherence/workload.js';
import { seededRandom } from './random.js';
import { startGateway } from './targets/gateway.js';
import type { ServerProcess } from './targets/server-process.js';
import { percentile } from './percentile.js';

const PRODUCTS = 2_000;
const CONCURRENCY = 16;
const HUNG_AFTER_MS = 5_000;
const FAULT_SECONDS = 4;
const WRITE_TOKEN = 'chaos-write-token-0123456789';
/** Cache misses are list pages within the catalog, in every sort: 20 × 100 × 7 = 14,000 distinct answers. */
const PAGES = 20;
const MAX_COUNT = 100;
const SORTS = ['id_asc', 'price_asc', 'price_desc', 'name_asc', 'name_desc', 'newest', 'oldest'];
/** The coherence clients beside the load: a shop's few writers and some readers. */
const COHERENCE_CLIENTS = { writers: 2, readers: 4 };
/** Under memory pressure, Redis may hold what it holds when the phase begins plus this. */
const EVICTION_HEADROOM_BYTES = 8 * 1024 ** 2;
const JUNK_BYTES_PER_SECOND = 2 * 1024 ** 2;
const READ_BACK_CLIENT = 'read-back';

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
  writesAcknowledged: number;
  writesNotAcknowledged: number;
  staleReads: number;
  maxLagMs: number;
  invalidationsLost: number;
  /** What shows the fault happened, and reads no write explains (none expected). */
  notes: string[];
}

/** A fault held for a phase: begins at `start`, over once `end` resolves (with its evidence, if it has some). */
interface PhaseFault {
  start: () => Promise<void> | void;
  end: () => Promise<string | void> | string | void;
}

const log = (message: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}`);
let nonce = 0;

/**
 * Requests cache misses until `until` says stop: list pages, each a page, size and sort not asked
 * for before (a cache key of its own: unknown parameters are refused, so junk cannot make one).
 */
async function drive(baseUrl: string, concurrency: number, stop: { done: boolean }, outcomes: Outcome[]): Promise<void> {
  const worker = async () => {
    while (!stop.done) {
      nonce += 1;
      const page = 1 + (nonce % PAGES);
      const count = 1 + (Math.floor(nonce / PAGES) % MAX_COUNT);
      const sort = SORTS[Math.floor(nonce / (PAGES * MAX_COUNT)) % SORTS.length];
      const url = `${baseUrl}/products?page=${page}&count=${count}&sort=${sort}`;
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

const endpoint = (server: ServerProcess): Endpoint => ({ name: server.name, base: server.baseUrl });

async function runPhase(
  phase: string,
  databaseUrl: string,
  target: ServerProcess,
  reader: ServerProcess,
  concurrency: number,
  fault: PhaseFault | undefined,
): Promise<PhaseReport> {
  log(`phase: ${phase}`);
  const outcomes: Outcome[] = [];
  const stop = { done: false };
  const initial = await currentSlogans(databaseUrl);
  const recorder = new HistoryRecorder();
  const clients = new AbortController();
  const load = drive(target.baseUrl, concurrency, stop, outcomes);
  const coherence = runWorkload(
    {
      ...COHERENCE_CLIENTS,
      gateways: [endpoint(target), endpoint(reader)],
      products: PRODUCTS,
      writeToken: WRITE_TOKEN,
      run: phase,
      random: seededRandom(7),
      recorder,
    },
    clients.signal,
  );
  await sleep(1_000);
  await fault?.start();
  await sleep(FAULT_SECONDS * 1_000);
  const evidence = await fault?.end();
  const restoredAt = performance.now();
  await sleep(4_000);
  stop.done = true;
  clients.abort();
  await Promise.all([load, coherence]);
  // Give the invalidation retries and generation checks their seconds, then read every written product back.
  await sleep(3_000);
  const written = new Set(
    recorder.operations.flatMap((operation) => (operation.kind === 'write' && operation.acknowledged ? [operation.product] : [])),
  );
  await readBack(recorder, READ_BACK_CLIENT, endpoint(reader), written);
  target.assertAlive();
  reader.assertAlive();
  const { summary, stale, impossible } = checkHistory(initial, recorder.operations);
  const staleDuring = stale.filter(({ read }) => read.client !== READ_BACK_CLIENT);
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
    writesAcknowledged: summary.writesAcknowledged,
    writesNotAcknowledged: summary.writesRefused + summary.writesUnanswered,
    staleReads: staleDuring.length,
    maxLagMs: Math.round(staleDuring.reduce((max, { lagMs }) => Math.max(max, lagMs), 0)),
    invalidationsLost: new Set(stale.filter(({ read }) => read.client === READ_BACK_CLIENT).map(({ product }) => product)).size,
    notes: [
      ...(evidence ? [evidence] : []),
      ...impossible.map((read) => `impossible read: ${formatImpossibleRead(read, recorder.origin)}`),
    ],
  };
}

/**
 * One of the coherence test's faults (gateway/test/coherence/faults.ts), held FAULT_SECONDS; its
 * end throws when the fault cannot be shown to have happened.
 */
function coherenceFault(kind: FaultKind, redis: RedisServer): PhaseFault {
  let injected: Promise<FaultRecord> | undefined;
  return {
    start: () => {
      injected = injectFault(
        // Its faults (eviction, a restart) draw nothing of their own: any seed.
        { kind, gapBeforeMs: 0, durationMs: FAULT_SECONDS * 1_000, gateway: 0, seed: 0 },
        { redis, gateways: [] },
        JUNK_BYTES_PER_SECOND,
      );
    },
    end: async () => {
      const record = await injected!;
      if (!record.happened) throw new Error(`${kind} did not happen: ${record.evidence}`);
      return `${kind}: ${record.evidence}`;
    },
  };
}

/** Redis at its memory limit for the phase (what it held, plus some room), junk pushing keys out under allkeys-lru. */
function evictionFault(redis: RedisServer): PhaseFault {
  const pressure = coherenceFault('redis memory pressure', redis);
  return {
    async start() {
      const { usedMemoryBytes } = await redis.stats();
      await redis.command('CONFIG', 'SET', 'maxmemory', String(usedMemoryBytes + EVICTION_HEADROOM_BYTES));
      await pressure.start();
    },
    async end() {
      try {
        return await pressure.end();
      } finally {
        await redis.command('CONFIG', 'SET', 'maxmemory', '0');
      }
    },
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
  // No memory limit but in the eviction phase; keyspace notifications show what it evicts.
  const redis: RedisServer = await startRedis({ maxmemoryPolicy: 'allkeys-lru', notifyKeyspaceEvents: 'Ee' });
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

  const phase = (name: string, target: ServerProcess, concurrency: number, fault?: PhaseFault) =>
    runPhase(name, databaseUrl, target, b, concurrency, fault);
  const reports = [
    await phase('baseline', a, CONCURRENCY),
    await phase('postgres stopped', a, CONCURRENCY, { start: () => postgres.stop(), end: () => postgres.start() }),
    await phase('postgres frozen', a, CONCURRENCY, { start: () => postgres.freeze(), end: () => postgres.thaw() }),
    await phase('redis evicting (allkeys-lru)', a, CONCURRENCY, evictionFault(redis)),
    await phase('redis killed, restarted empty', a, CONCURRENCY, coherenceFault('redis restarted empty', redis)),
    await phase('redis frozen', a, CONCURRENCY, { start: () => redis.freeze(), end: () => redis.thaw() }),
    await phase('3x load, pool of 2', small, CONCURRENCY * 3),
  ];
  console.log(
    '\n| phase | requests by status | p99 | hung (no answer in 5 s) | seconds to recover | writes acknowledged (not) | stale reads (max lag) | invalidations lost |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of reports) {
    const statuses = Object.entries(r.byStatus)
      .sort()
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    console.log(
      `| ${r.phase} | ${statuses} | ${r.p99Ms} ms | ${r.hung} | ${r.recoverySeconds ?? 'never'} | ${r.writesAcknowledged} (${r.writesNotAcknowledged}) | ${r.staleReads} (${r.maxLagMs} ms) | ${r.invalidationsLost} |`,
    );
  }
  for (const r of reports) for (const note of r.notes) console.log(`- ${r.phase}: ${note}`);
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}
process.exit(exitCode);
