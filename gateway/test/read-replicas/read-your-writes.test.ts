// Read-your-writes over a lagging streaming replica, end to end (gateway/README.md,
// "Consistency", rules 8 and 9): a Postgres 15 primary and one streaming replica
// (scripts/test/postgres-replication.ts), one Redis, and two gateway processes that both read
// the replica (DATABASE_READ_URLS) and cache for an hour. Replay is paused on the replica with
// `pg_wal_replay_pause()` while the replica stays in the rotation (DATABASE_READ_MAX_LAG_MS at
// its most), so that nothing but rule 8 keeps its old rows out of answers. The bound is 0: every
// read is made once, at once after the write's 2xx or after the gateway heard the swap.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import pino from 'pino';
import { SERVING_SCHEMA } from '@catalog/contract';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import {
  startReplicatedPostgres,
  type PostgresNode,
  type ReplicatedPostgres,
  type ReplicaNode,
} from '../../../scripts/test/postgres-replication.js';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { startGatewayProcess, type GatewayProcess } from '../coherence/gateway-process.js';
import { authorized, eventually, graphql, metricValue, startGateway, WRITE_TOKEN } from '../support/gateway.js';
import {
  BYSTANDER_ID,
  CACHE_ENTRIES_PER_PRODUCT,
  CACHED_READS,
  restRead,
  send,
  uncachedRead,
  type ProductRead,
  type Seen,
} from './product-reads.js';

const PRODUCTS = `${SERVING_SCHEMA}.products`;
/** Products in each generated catalog. */
const CATALOG_PRODUCTS = 40;
/** A list page's size, for the page a created product lands on. */
const PAGE_COUNT = 5;
/** Replication, restarts and catch-ups on a machine the whole suite shares. */
const REPLICATION_WAIT_MS = 30_000;
/** Concurrent clients while the replica is killed, and while the catalog is swapped. */
const CLIENTS = 6;
/** Reads each phase of a concurrent run lasts at least. */
const READS_PER_PHASE = 150;

const SERIES = {
  primaryStatements: 'catalog_db_statements_total{target="primary"}',
  replicaStatements: 'catalog_db_statements_total{target="replica-1"}',
  behindWrites: 'catalog_db_replica_fallbacks_total{reason="behind_writes"}',
  noLease: 'catalog_db_replica_fallbacks_total{reason="no_lease"}',
  leaseHeld: 'catalog_coherence_lease_held',
  replicaInRotation: 'catalog_db_in_rotation{target="replica-1"}',
  replicaLagSeconds: 'catalog_db_replay_lag_seconds{target="replica-1"}',
  replicaPoolClients: 'catalog_db_pool_clients{target="replica-1",state="total"}',
  memoryHits: 'catalog_cache_lookups_total{backend="memory",result="hit"}',
  redisHits: 'catalog_cache_lookups_total{backend="redis",result="hit"}',
  sharedStores: 'catalog_cache_shared_stores_total{result="stored"}',
} as const;
type Counters = Record<keyof typeof SERIES, number>;

let servers: ReplicatedPostgres;
let replica: ReplicaNode;
let database: string;
let redis: RedisServer;
let dataDir: string;
let gateways: GatewayProcess[] = [];

/** Generates the catalog of `seed` and has the loader swap it into service on the primary. */
async function loadGeneratedCatalog(seed: number): Promise<void> {
  const dir = join(dataDir, `seed-${seed}`);
  await generateCatalog({ outDir: dir, products: CATALOG_PRODUCTS, seed });
  await loadCatalog({ databaseUrl: servers.primary.urlFor(database), dataDir: dir, logger: pino({ level: 'silent' }) });
}

before(async () => {
  [servers, redis] = await Promise.all([startReplicatedPostgres({ replicas: 1 }), startRedis()]);
  replica = servers.replicas[0]!;
  database = await servers.createDatabase('ryw');
  dataDir = await mkdtemp(join(tmpdir(), 'catalog-ryw-'));
  await loadGeneratedCatalog(1);
  await servers.caughtUp();
  const env = {
    DATABASE_URL: servers.primary.urlFor(database),
    DATABASE_READ_URLS: replica.urlFor(database),
    // At its most: a paused replica stays in the rotation however long the test takes, so a
    // stale row can only be kept out by rule 8, never by the lag bound.
    DATABASE_READ_MAX_LAG_MS: '300000',
    REDIS_URL: redis.url,
    WRITE_TOKEN,
    CACHE_TTL_SECONDS: '3600',
    // The catalog-swap line is logged at info, with the time the gateway heard the swap.
    LOG_LEVEL: 'info',
  };
  gateways = await Promise.all(['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, env)));
});

after(async () => {
  await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
  await Promise.allSettled([redis?.stop(), servers?.destroy(), dataDir && rm(dataDir, { recursive: true, force: true })]);
});

async function countersOf(gateway: GatewayProcess): Promise<Counters> {
  const text = await (await fetch(gateway.metricsUrl)).text();
  return Object.fromEntries(Object.entries(SERIES).map(([key, series]) => [key, metricValue(text, series)])) as Counters;
}
const snapshot = () => Promise.all(gateways.map(countersOf));
const leaseHeld = async (gateway: GatewayProcess) => (await countersOf(gateway)).leaseHeld === 1;
/** How much `counter` grew on each gateway between two snapshots. */
const grew = (from: Counters[], to: Counters[], counter: keyof Counters) =>
  to.map((counters, index) => counters[counter] - from[index]![counter]);

/** Every product of the served catalog on `server`, by id. */
async function productsOn(server: PostgresNode): Promise<Map<number, NonNullable<Seen>>> {
  const rows = await server.query<{ id: string; name: string; slogan: string | null }>(
    database,
    `SELECT id, name, slogan FROM ${PRODUCTS} ORDER BY id`,
  );
  return new Map(rows.map((row) => [Number(row.id), { name: row.name, slogan: row.slogan }]));
}

/** Both gateways have the replica in the rotation, caught up with what they saw the primary write. */
const replicaInUse = () =>
  eventually(
    'both gateways to see the replica caught up and in the rotation',
    async () => (await snapshot()).every((counters) => counters.replicaInRotation === 1 && counters.replicaLagSeconds === 0),
    REPLICATION_WAIT_MS,
  );

/**
 * Makes the replica report the gateways' reads in its statistics (`pg_stat_user_tables`): a
 * backend reports them when it ends, so the gateways' idle sessions there are ended; once both
 * pools have dropped them, the replica is waited back into both rotations (a lost connection
 * takes it out until the next poll).
 */
async function flushReplicaStatistics(): Promise<void> {
  await replica.query(
    'postgres',
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'catalog-gateway' AND state = 'idle'",
  );
  await eventually(
    "the gateways' pools to drop the ended sessions",
    async () => (await snapshot()).every((counters) => counters.replicaPoolClients === 0),
    REPLICATION_WAIT_MS,
  );
  await replicaInUse();
}

/**
 * Reads each of `ids` with `read` through each gateway and checks what they show against
 * `expected`, then shows from the counters and the replica's own statistics that the replica
 * answered them all: no statement on the primary, no answer read again there.
 */
async function readsLandOnTheReplica(ids: readonly number[], expected: ReadonlyMap<number, Seen>): Promise<void> {
  await flushReplicaStatistics();
  const scansBefore = await replica.scans(database, PRODUCTS);
  const before = await snapshot();
  for (const gateway of gateways) {
    for (const id of ids)
      assert.deepEqual(await uncachedRead.read(gateway, id), expected.get(id) ?? null, `product ${id} via ${gateway.name}`);
  }
  const after = await snapshot();
  for (const [index, gateway] of gateways.entries()) {
    assert.ok(grew(before, after, 'replicaStatements')[index]! >= ids.length, `${gateway.name} read the replica`);
    assert.equal(grew(before, after, 'primaryStatements')[index], 0, `${gateway.name} sent no read to the primary`);
    assert.equal(grew(before, after, 'behindWrites')[index], 0, `${gateway.name} read no answer again on the primary`);
  }
  await flushReplicaStatistics();
  const scans = (await replica.scans(database, PRODUCTS)) - scansBefore;
  assert.ok(
    scans >= ids.length * gateways.length,
    `the replica scanned ${PRODUCTS} ${scans} times for ${ids.length * gateways.length} reads`,
  );
}

/**
 * Since `from`, the lagging replica stayed in both rotations and both gateways asked it, then read
 * its answers again on the primary: nothing but rule 8 kept its old rows out of their answers.
 */
async function replicaAnswersOverruled(from: Counters[]): Promise<void> {
  const now = await snapshot();
  assert.deepEqual(
    now.map((counters) => counters.replicaInRotation),
    [1, 1],
    'the lagging replica stayed in both rotations',
  );
  for (const [index, reread] of grew(from, now, 'behindWrites').entries()) {
    assert.ok(reread > 0, `${gateways[index]!.name} read the replica's answers again on the primary`);
  }
}

/** Reads product `id` every cacheable way through both gateways, once each, and lists what differs from `expected`. */
async function misreads(id: number, expected: Seen): Promise<string[]> {
  const wrong: string[] = [];
  for (const gateway of gateways) {
    for (const read of CACHED_READS) {
      const seen = await read.read(gateway, id);
      if (!isDeepStrictEqual(seen, expected)) wrong.push(`${read.label} via ${gateway.name}: ${JSON.stringify(seen)}`);
    }
  }
  return wrong;
}

/** The ids a list page shows, by REST and by GraphQL, through `gateway`. */
async function listedIds(gateway: GatewayProcess, page: number): Promise<{ rest: number[]; graphql: number[] }> {
  const rest = await send(gateway, 'GET', `/products?page=${page}&count=${PAGE_COUNT}`);
  const graphql = await send(gateway, 'POST', '/graphql', {
    body: { query: `{ products(page: ${page}, count: ${PAGE_COUNT}) { id } }` },
  });
  assert.equal(rest.status, 200);
  assert.equal(graphql.status, 200);
  return {
    rest: (rest.json as { id: number }[]).map((product) => Number(product.id)),
    graphql: (graphql.json as { data: { products: { id: string }[] } }).data.products.map((product) => Number(product.id)),
  };
}

/** What one read of a concurrent run began at (wall clock, as the gateways' logs), and showed or failed with. */
interface TimedRead {
  gateway: string;
  label: string;
  id: number;
  startedAt: number;
  seen?: Seen;
  failure?: string;
}

const formatRead = (read: TimedRead) => `${read.label} of ${read.id} via ${read.gateway}: ${read.failure ?? JSON.stringify(read.seen)}`;

/**
 * CLIENTS clients reading `ids` with `reads` in turn, through both gateways in turn, until
 * `stop()`; `history` holds every read made so far, answered or failed.
 */
function readConcurrently(ids: readonly number[], reads: readonly ProductRead[]) {
  const history: TimedRead[] = [];
  let stopped = false;
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    for (let turn = client; !stopped; turn += CLIENTS) {
      const gateway = gateways[turn % gateways.length]!;
      const id = ids[Math.floor(turn / gateways.length) % ids.length]!;
      const read = reads[turn % reads.length]!;
      const record: TimedRead = { gateway: gateway.name, label: read.label, id, startedAt: Date.now() };
      try {
        record.seen = await read.read(gateway, id);
      } catch (error) {
        record.failure = (error as Error).message;
      }
      history.push(record);
    }
  });
  return {
    history,
    /** Resolves once `count` more reads have been made. */
    async goOn(what: string, count = READS_PER_PHASE) {
      const from = history.length;
      await eventually(what, async () => history.length >= from + count, REPLICATION_WAIT_MS);
    },
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

/** When `gateway` heard the loader's swap announcement: the time of its log line (ms since the epoch). */
async function heardSwapAt(gateway: GatewayProcess): Promise<number> {
  let heard: number | undefined;
  await eventually(
    `${gateway.name} to hear the catalog swap`,
    async () => {
      // Whole lines only: the last one may still be on its way.
      const line = gateway.output
        .split('\n')
        .slice(0, -1)
        .find((text) => text.includes('a new catalog is in service'));
      heard = line === undefined ? undefined : (JSON.parse(line) as { time: number }).time;
      return heard !== undefined;
    },
    REPLICATION_WAIT_MS,
  );
  return heard!;
}

describe('read-your-writes with the replica lagging (replay paused), through two gateways sharing Redis', () => {
  /** What every product shows now, as the test has written it. */
  let expected: Map<number, Seen>;
  /** The products written, and the one created. */
  const written = { put: 2, mutated: 3, restDeleted: 4, graphqlDeleted: 5, created: 0 };

  it('a write through gateway-a is read back new at once through both, by REST and GraphQL, cached answers included', async () => {
    const [a, b] = gateways as [GatewayProcess, GatewayProcess];
    const original = await productsOn(servers.primary);
    expected = new Map<number, Seen>(original);
    assert.equal(original.size, CATALOG_PRODUCTS);
    for (const id of [BYSTANDER_ID, written.put, written.mutated, written.restDeleted, written.graphqlDeleted]) assert.ok(original.has(id));
    await replicaInUse();

    // Cached before the write: each answer computed once, by gateway-a from the replica, stored
    // in Redis, taken from there into gateway-b's memory; then both answer from memory alone.
    const targets = [written.put, written.mutated, written.restDeleted, written.graphqlDeleted];
    // The list page a created product lands on, empty until then.
    const nextPage = Math.floor(CATALOG_PRODUCTS / PAGE_COUNT) + 1;
    const start = await snapshot();
    for (const id of targets) for (const read of CACHED_READS) assert.deepEqual(await read.read(a, id), expected.get(id));
    assert.deepEqual(await listedIds(a, nextPage), { rest: [], graphql: [] });
    await eventually(
      'gateway-a to store its answers in Redis',
      async () => (await countersOf(a)).sharedStores - start[0]!.sharedStores >= targets.length * CACHE_ENTRIES_PER_PRODUCT,
    );
    for (const id of targets) assert.deepEqual(await misreads(id, expected.get(id)!), []);
    assert.deepEqual(await listedIds(b, nextPage), { rest: [], graphql: [] });
    const warmed = await snapshot();
    assert.ok(grew(start, warmed, 'redisHits')[1]! >= targets.length * CACHE_ENTRIES_PER_PRODUCT, 'gateway-b took the answers from Redis');
    assert.ok(grew(start, warmed, 'replicaStatements')[0]! > 0, 'gateway-a computed the answers on the replica');
    for (const id of targets) assert.deepEqual(await misreads(id, expected.get(id)!), []);
    const cached = await snapshot();
    for (const counter of ['primaryStatements', 'replicaStatements'] as const) {
      assert.deepEqual(grew(warmed, cached, counter), [0, 0], `${counter}: every answer came from a cache`);
    }
    assert.deepEqual(grew(warmed, cached, 'memoryHits'), [targets.length * CACHED_READS.length, targets.length * CACHED_READS.length]);

    await replica.pauseReplay();
    const put = await send(a, 'PUT', `/products/${written.put}`, {
      body: { slogan: 'Put through gateway-a while the replica lags' },
      token: WRITE_TOKEN,
    });
    assert.equal(put.status, 200, JSON.stringify(put.json));
    expected.set(written.put, { ...expected.get(written.put)!, slogan: 'Put through gateway-a while the replica lags' });
    assert.deepEqual(await misreads(written.put, expected.get(written.put)!), [], 'right after a REST PUT');

    const mutated = { name: 'Mutated while the replica lags', slogan: 'Renamed by a GraphQL mutation' };
    const mutation = await send(a, 'POST', '/graphql', {
      body: {
        query: 'mutation Rename($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { id name slogan } }',
        variables: { id: String(written.mutated), input: mutated },
      },
      token: WRITE_TOKEN,
    });
    assert.deepEqual(mutation.json, { data: { updateProduct: { id: String(written.mutated), ...mutated } } });
    expected.set(written.mutated, mutated);
    assert.deepEqual(await misreads(written.mutated, mutated), [], 'right after a GraphQL mutation');

    const created = { name: 'Created while the replica lags', slogan: 'Only the primary has it' };
    const create = await send(a, 'POST', '/products', { body: created, token: WRITE_TOKEN });
    assert.equal(create.status, 201, JSON.stringify(create.json));
    written.created = Number((create.json as { id: number }).id);
    expected.set(written.created, created);
    assert.deepEqual(await misreads(written.created, created), [], 'right after a REST create');
    // The list page it lands on was cached empty by both gateways.
    for (const gateway of gateways) {
      assert.deepEqual(await listedIds(gateway, nextPage), { rest: [written.created], graphql: [written.created] }, gateway.name);
    }

    const restDelete = await send(a, 'DELETE', `/products/${written.restDeleted}`, { token: WRITE_TOKEN });
    assert.equal(restDelete.status, 204);
    expected.set(written.restDeleted, null);
    assert.deepEqual(await misreads(written.restDeleted, null), [], 'right after a REST delete');

    const graphqlDelete = await send(a, 'POST', '/graphql', {
      body: { query: `mutation { deleteProduct(id: ${written.graphqlDeleted}) }` },
      token: WRITE_TOKEN,
    });
    assert.deepEqual(graphqlDelete.json, { data: { deleteProduct: true } });
    expected.set(written.graphqlDeleted, null);
    assert.deepEqual(await misreads(written.graphqlDeleted, null), [], 'right after a GraphQL delete');

    // The replica has none of it.
    const onReplica = await productsOn(replica);
    for (const id of targets) assert.deepEqual(onReplica.get(id), original.get(id), `the replica still holds product ${id} as it was`);
    assert.equal(onReplica.has(written.created), false, 'the replica has not replayed the create');
    await replicaAnswersOverruled(cached);
  });

  it('stays new after replay resumes, and reads go back to the replica once it has replayed the writes', async () => {
    await replica.resumeReplay();
    await servers.caughtUp();
    assert.deepEqual((await productsOn(replica)).get(written.created), expected.get(written.created));
    await replicaInUse();
    for (const [id, seen] of expected) {
      if (Object.values(written).includes(id)) assert.deepEqual(await misreads(id, seen), [], `product ${id} after replay resumed`);
    }
    // Never-cached queries of the written products now use the replica, found up to date.
    await readsLandOnTheReplica([BYSTANDER_ID, written.put, written.mutated, written.created], expected);
  });

  it('reads on the primary while Redis is frozen (no lease: a write might go unheard), counted as no_lease, and on the replica again after', async () => {
    await replicaInUse();
    const before = await snapshot();
    redis.freeze();
    try {
      await eventually(
        'both gateways to lose their coherence lease',
        async () => (await Promise.all(gateways.map(leaseHeld))).every((held) => !held),
        REPLICATION_WAIT_MS,
      );
      for (const gateway of gateways) {
        assert.deepEqual(await uncachedRead.read(gateway, BYSTANDER_ID), expected.get(BYSTANDER_ID), `via ${gateway.name}`);
      }
    } finally {
      redis.thaw();
    }
    const after = await snapshot();
    for (const [index, gateway] of gateways.entries()) {
      assert.ok(grew(before, after, 'noLease')[index]! > 0, `${gateway.name} counted its reads on the primary as no_lease`);
      assert.ok(grew(before, after, 'primaryStatements')[index]! > 0, `${gateway.name} read the primary`);
    }
    await eventually('both leases back', async () => (await Promise.all(gateways.map(leaseHeld))).every(Boolean), REPLICATION_WAIT_MS);
    await readsLandOnTheReplica([BYSTANDER_ID], expected);
  });

  it('loses no read to the replica killed under concurrent reads, and reads on it again once it is back', async () => {
    await replicaInUse();
    const live = [...expected.keys()].filter((id) => expected.get(id) !== null);
    const before = await snapshot();
    const run = readConcurrently(live, [uncachedRead, restRead, uncachedRead]);
    let killed: Counters[] | undefined;
    let rejoined: Counters[] | undefined;
    try {
      await run.goOn('reads with the replica up');
      killed = await snapshot();
      await replica.kill();
      await eventually(
        'both gateways to take the killed replica out of the rotation',
        async () => (await snapshot()).every((counters) => counters.replicaInRotation === 0),
        REPLICATION_WAIT_MS,
      );
      await run.goOn('reads with the replica dead');
      await replica.start();
      await replicaInUse();
      rejoined = await snapshot();
      await run.goOn('reads after the replica is back');
    } finally {
      await run.stop();
    }
    const after = await snapshot();
    const wrong = run.history.filter((read) => read.failure !== undefined || !isDeepStrictEqual(read.seen, expected.get(read.id)));
    console.log(
      `${run.history.length} reads, ${wrong.length} failed or wrong; replica statements ${grew(before, after, 'replicaStatements').join(' / ')}`,
    );
    assert.deepEqual(wrong.slice(0, 10).map(formatRead), []);
    for (const [index, gateway] of gateways.entries()) {
      assert.ok(grew(before, killed!, 'replicaStatements')[index]! > 0, `${gateway.name} read the replica before it was killed`);
      assert.ok(grew(rejoined!, after, 'replicaStatements')[index]! > 0, `${gateway.name} read the replica again after its restart`);
    }
  });

  it('serves no product of the old catalog once a gateway heard of a swap the paused replica has not replayed', async () => {
    await replicaInUse();
    const oldCatalog = await productsOn(servers.primary);
    const ids = Array.from({ length: CATALOG_PRODUCTS }, (_, index) => index + 1);
    // The old catalog cached in both gateways' memory and in Redis.
    for (const id of ids.slice(0, 10)) assert.deepEqual(await misreads(id, oldCatalog.get(id) ?? null), []);

    await replica.pauseReplay();
    const before = await snapshot();
    const run = readConcurrently(ids, [...CACHED_READS, uncachedRead]);
    let heardAt: number[] = [];
    try {
      await run.goOn('reads before the swap', 50);
      await loadGeneratedCatalog(2);
      heardAt = await Promise.all(gateways.map(heardSwapAt));
      await eventually(
        `${READS_PER_PHASE} reads through each gateway after it heard the swap`,
        async () =>
          gateways.every(
            (gateway, index) =>
              run.history.filter((read) => read.gateway === gateway.name && read.startedAt > heardAt[index]!).length >= READS_PER_PHASE,
          ),
        REPLICATION_WAIT_MS,
      );
    } finally {
      await run.stop();
    }
    const newCatalog = await productsOn(servers.primary);
    const changed = ids.filter((id) => !isDeepStrictEqual(oldCatalog.get(id), newCatalog.get(id)));
    assert.ok(changed.length >= CATALOG_PRODUCTS / 2, `the two catalogs differ in ${changed.length} products`);
    assert.deepEqual(await productsOn(replica), oldCatalog, 'the paused replica still holds the old catalog');

    const heardBy = new Map(gateways.map((gateway, index) => [gateway.name, heardAt[index]!]));
    const judged = run.history.filter((read) => read.startedAt > heardBy.get(read.gateway)!);
    const wrong = judged.filter((read) => read.failure !== undefined || !isDeepStrictEqual(read.seen, newCatalog.get(read.id) ?? null));
    const old = wrong.filter((read) => read.seen !== undefined && isDeepStrictEqual(read.seen, oldCatalog.get(read.id) ?? null));
    console.log(
      `${run.history.length} reads, ${judged.length} after their gateway heard the swap: ${wrong.length} not of the new catalog (${old.length} of the old)`,
    );
    assert.deepEqual(wrong.slice(0, 10).map(formatRead), []);
    for (const id of ids) assert.deepEqual(await misreads(id, newCatalog.get(id) ?? null), [], `product ${id} after the swap`);
    await replicaAnswersOverruled(before);

    await replica.resumeReplay();
    await servers.caughtUp();
    assert.deepEqual(await productsOn(replica), newCatalog, 'the replica replayed the swap');
    await replicaInUse();
    await readsLandOnTheReplica(ids.slice(0, 8), newCatalog);
  });
});

/**
 * A write whose writer cannot read the primary's WAL position after its commit (its connection
 * lost, the read timed out) is announced without one, here or through Redis alike: no reader
 * knows what a replica must have replayed to serve it, so none may serve anything until the
 * primary says where it is. One gateway in-process suffices; it connects as a role that
 * `pg_current_wal_lsn()` can be taken from (a superuser bypasses function grants).
 */
describe("read-your-writes when a write's WAL position cannot be read", () => {
  const ROLE = 'catalog_gateway_ryw';
  /** `node`'s URL of the test database, as ROLE. */
  const urlAsRole = (node: PostgresNode) => node.urlFor(database).replace('//postgres@', `//${ROLE}@`);

  before(async () => {
    await servers.primary.query(database, `CREATE ROLE ${ROLE} LOGIN`);
    for (const grant of [
      `GRANT USAGE ON SCHEMA ${SERVING_SCHEMA} TO ${ROLE}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${SERVING_SCHEMA} TO ${ROLE}`,
      `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${SERVING_SCHEMA} TO ${ROLE}`,
      // What the replica's WAL receiver streams (which primary it follows) is shown only to this role.
      `GRANT pg_read_all_stats TO ${ROLE}`,
    ]) {
      await servers.primary.query(database, grant);
    }
  });
  after(async () => {
    await replica.resumeReplay().catch(() => {});
    await servers.primary.query(database, 'GRANT EXECUTE ON FUNCTION pg_current_wal_lsn() TO PUBLIC');
  });

  it('keeps the replica out of reads of it (the floor is raised) instead of trusting a replica that has not replayed it', async () => {
    const app = await startGateway(urlAsRole(servers.primary), {
      DATABASE_READ_URLS: urlAsRole(replica),
      DATABASE_READ_MAX_LAG_MS: '300000',
      CACHE_TTL_SECONDS: '3600',
    });
    try {
      const [target] = app.services.reads.replicas;
      await servers.caughtUp();
      await eventually('the replica in the rotation', async () => target!.inRotation(), REPLICATION_WAIT_MS);
      const id = 9;
      const before = await app.inject({ method: 'GET', url: `/products/${id}` });
      assert.equal(before.statusCode, 200);
      // The primary's position can no longer be read by the gateway (as when its connection to the
      // primary fails right after a commit): its polls fail, so the replica, caught up with the
      // last position the gateway saw, stays in the rotation with no lag.
      await servers.primary.query(database, 'REVOKE EXECUTE ON FUNCTION pg_current_wal_lsn() FROM PUBLIC');
      await servers.caughtUp();
      await replica.pauseReplay();
      const slogan = 'Written while neither its position nor the replica could be trusted';
      const put = await app.inject({ method: 'PUT', url: `/products/${id}`, headers: authorized, payload: { slogan } });
      assert.equal(put.statusCode, 200, put.body);
      assert.ok(target!.inRotation(), 'the lagging replica is still in the rotation');
      assert.notEqual((await productsOn(replica)).get(id)?.slogan, slogan, 'the replica has not replayed the write');
      const after = await app.inject({ method: 'GET', url: `/products/${id}` });
      assert.equal(after.json().slogan, slogan);
      const graphqlAfter = await graphql(app, `{ product(id: ${id}) { slogan } }`);
      assert.equal(graphqlAfter.json().data.product.slogan, slogan);
    } finally {
      await app.close();
    }
  });
});
