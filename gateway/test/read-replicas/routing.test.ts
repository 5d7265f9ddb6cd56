// Reads on streaming replicas against real servers: a Postgres 15 primary with two streaming
// replicas (scripts/test/postgres-replication.ts) under one gateway built in-process. Each server's
// own statistics and the gateway's per-target counters show where reads went. What a response
// may do with a replica's answer (the cache, read-your-writes) is the coherence layer's, tested
// with it; this is the database side it stands on.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { SERVING_SCHEMA } from '@catalog/contract';
import type { FastifyInstance } from 'fastify';
import { startReplicatedPostgres, type ReplicatedPostgres, type ReplicaNode } from '../../../scripts/test/postgres-replication.js';
import { onTimeline, timelineOf, type Lsn } from '../../src/db/lsn.js';
import type { ReadTarget, ReplicaTarget } from '../../src/db/read-targets.js';
import { createRequestScope } from '../../src/services.js';
import { authorized, createCatalog, eventually, graphql, metricValue, startGateway } from '../support/gateway.js';
import { scrapeMetrics } from '../../../scripts/test/metrics.js';

const PRODUCTS = `${SERVING_SCHEMA}.products`;
const MAX_LAG_MS = 1_000;
const IDS = [1, 2, 3, 5];
/** Replication waits: a replica cloned, restarted or caught up on a busy machine. */
const REPLICATION_WAIT_MS = 30_000;

let servers: ReplicatedPostgres;
let database: string;
let app: FastifyInstance;

before(async () => {
  servers = await startReplicatedPostgres({ replicas: 2 });
  database = await servers.createDatabase('replicas');
  await createCatalog(servers.primary.urlFor(database), await readFile(new URL('../fixtures/seed.sql', import.meta.url), 'utf8'));
  await servers.caughtUp();
  app = await startGateway(servers.primary.urlFor(database), {
    DATABASE_READ_URLS: servers.replicas.map((replica) => replica.urlFor(database)).join(','),
    DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
    CACHE_TTL_SECONDS: '0',
  });
});

after(async () => {
  await app?.close();
  await servers?.destroy();
});

const reads = () => app.services.reads;
const replicaTarget = (name: string): ReplicaTarget => reads().replicas.find((replica) => replica.name === name)!;
const node = (name: string): ReplicaNode => servers.replicas.find((replica) => replica.name === name)!;

/** A request's worth of reads, all through one scope on `target`: a product page's loaders and a list page. */
async function readThrough(target: ReadTarget, id: number): Promise<void> {
  const { loaders, target: read } = createRequestScope(app.services, target);
  const [product, styles] = await Promise.all([loaders.productWithFeatures.load(id), loaders.styleTrees.load(id)]);
  assert.equal(product?.id, id);
  assert.equal(styles?.id, id);
  await read.repositories.products.listAfter(0, 0, 2);
}

/** Reads as a request that may use a replica makes them. */
const readAnywhere = (id: number) => readThrough(reads().pickReplica(), id);

async function metrics(): Promise<string> {
  return scrapeMetrics(app);
}
const statements = (text: string, target: string) => metricValue(text, `catalog_db_statements_total{target="${target}"}`);

/**
 * Makes every server report the gateway's reads in its statistics: a backend reports them within
 * 10 s of going idle, or at once when it exits, so the gateway's idle sessions are ended (its
 * pools open new ones) and the replicas that were in the rotation are waited back into it.
 */
async function flushStatistics(): Promise<void> {
  const wereIn = reads().replicas.filter((replica) => replica.inRotation());
  for (const server of [servers.primary, ...servers.replicas.filter((replica) => replica.running)]) {
    await server.query(
      'postgres',
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'catalog-gateway' AND state = 'idle'",
    );
  }
  await eventually(
    "the gateway's pools to drop the ended sessions",
    async () => [reads().primary, ...reads().replicas].every((target) => target.db.pool.totalCount === 0),
    REPLICATION_WAIT_MS,
  );
  await eventually('the replicas back in the rotation', async () => wereIn.every((replica) => replica.inRotation()), REPLICATION_WAIT_MS);
}

/** How many times each server scanned the products table while `work` ran. */
async function scansDuring(work: () => Promise<void>): Promise<Record<string, number>> {
  const nodes = [servers.primary, ...servers.replicas.filter((replica) => replica.running)];
  const scans = async () =>
    Object.fromEntries(await Promise.all(nodes.map(async (server) => [server.name, await server.scans(database, PRODUCTS)])));
  await flushStatistics();
  const before = await scans();
  await work();
  await flushStatistics();
  const after = await scans();
  return Object.fromEntries(nodes.map((server) => [server.name, after[server.name]! - before[server.name]!]));
}

const bothInRotation = () =>
  eventually('both replicas in the rotation', async () => reads().replicas.every((replica) => replica.inRotation()), REPLICATION_WAIT_MS);

describe('reads on streaming replicas', () => {
  it('land on the replicas, in turn, and not on the primary; the per-target counters agree', async () => {
    await bothInRotation();
    const counted = await metrics();
    const scans = await scansDuring(async () => {
      for (let round = 0; round < 20; round += 1) await readAnywhere(IDS[round % IDS.length]!);
    });
    const after = await metrics();
    console.log('products scans per server during 20 requests:', scans);
    assert.equal(scans.primary, 0, 'no read reached the primary');
    for (const replica of ['replica-1', 'replica-2']) {
      assert.ok(scans[replica]! >= 20, `${replica} scanned products ${scans[replica]} times`);
      // 20 requests × 3 statements, taken in turn by two idle replicas.
      assert.equal(statements(after, replica) - statements(counted, replica), 30, replica);
    }
    assert.equal(statements(after, 'primary') - statements(counted, 'primary'), 0);
    assert.equal(metricValue(after, 'catalog_db_in_rotation{target="replica-1"}'), 1);
    assert.equal(metricValue(after, 'catalog_db_in_rotation{target="primary"}'), 0);
  });

  it('serve list pages from the replicas too: REST pages (legacy, filtered, sorted) and GraphQL products and productsConnection', async () => {
    await bothInRotation();
    const counted = await metrics();
    const lists = [
      () => app.inject({ method: 'GET', url: '/products?page=1&count=3' }),
      () => app.inject({ method: 'GET', url: '/products?sort=price_desc&count=2' }),
      () => app.inject({ method: 'GET', url: '/products?q=the&page=1' }),
      () => graphql(app, '{ products(page: 1, count: 2) { id name } }'),
      () => graphql(app, '{ productsConnection(first: 2, sort: NAME_ASC) { nodes { id } pageInfo { hasNextPage } } }'),
    ];
    for (const list of lists) {
      const response = await list();
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().errors, undefined, response.body);
    }
    const after = await metrics();
    assert.equal(statements(after, 'primary') - statements(counted, 'primary'), 0, 'no list page read the primary');
    const onReplicas = ['replica-1', 'replica-2'].reduce(
      (sum, replica) => sum + statements(after, replica) - statements(counted, replica),
      0,
    );
    assert.ok(onReplicas >= lists.length, `${onReplicas} statements on the replicas for ${lists.length} list pages`);
  });

  it('send writes, and what they return, to the primary', async () => {
    await bothInRotation();
    const counted = await metrics();
    const scans = await scansDuring(async () => {
      const write = await app.inject({
        method: 'PUT',
        url: '/products/3',
        headers: authorized,
        payload: { slogan: 'Written on the primary' },
      });
      assert.equal(write.statusCode, 200, write.body);
      assert.equal(write.json().slogan, 'Written on the primary');
      // A mutation and the relations it returns.
      const mutation = await graphql(
        app,
        'mutation { updateProduct(id: 1, input: { slogan: "Mutated on the primary" }) { slogan features { feature } styles { id } } }',
        {},
        authorized,
      );
      assert.equal(mutation.statusCode, 200, mutation.body);
      assert.equal(mutation.json().data.updateProduct.slogan, 'Mutated on the primary');
      assert.equal(mutation.json().data.updateProduct.styles.length, 2);
    });
    const after = await metrics();
    assert.equal(scans['replica-1'], 0);
    assert.equal(scans['replica-2'], 0);
    assert.ok(statements(after, 'primary') > statements(counted, 'primary'));
    for (const replica of ['replica-1', 'replica-2']) assert.equal(statements(after, replica), statements(counted, replica));
  });

  it('compare WAL positions as read-your-writes needs: a commit is visible on a replica once its replay position reaches the primary position read after it', async () => {
    await bothInRotation();
    const replica = replicaTarget('replica-1');
    const replicaSlogan = async () =>
      (await node('replica-1').query<{ slogan: string }>(database, `SELECT slogan FROM ${PRODUCTS} WHERE id = 2`))[0]!.slogan;
    let committed: Lsn;
    await node('replica-1').pauseReplay();
    try {
      await servers.primary.query(database, `UPDATE ${PRODUCTS} SET slogan = 'after the pause' WHERE id = 2`);
      committed = await reads().primary.currentLsn();
      // The primary's own view of its insert position agrees with the one the gateway read (the
      // write position, pg_current_wal_lsn(), may still be behind it while WAL sits in buffers).
      const [{ lsn, file } = { lsn: '', file: '' }] = await servers.primary.query<{ lsn: string; file: string }>(
        database,
        'SELECT pg_current_wal_insert_lsn()::text AS lsn, pg_walfile_name(pg_current_wal_insert_lsn()) AS file',
      );
      assert.ok(onTimeline(timelineOf(file), lsn) >= committed);
      // Polls go on while replay is paused: the replica stays short of the commit, and does not show it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.ok(replica.replayedLsn() < committed, `replica-1 replayed ${replica.replayedLsn()} < ${committed}`);
      assert.notEqual(await replicaSlogan(), 'after the pause');
    } finally {
      await node('replica-1').resumeReplay();
    }
    await eventually('replica-1 polled past the commit', async () => replica.replayedLsn() >= committed, REPLICATION_WAIT_MS);
    assert.equal(await replicaSlogan(), 'after the pause');
    const { loaders } = createRequestScope(app.services, replica);
    assert.equal((await loaders.productWithFeatures.load(2))?.slogan, 'after the pause');
    // Once caught up on an idle primary, lag is 0, not the time since the last write.
    await eventually('replica-1 lag back to 0', async () => replica.health.lagMs(performance.now()) === 0, REPLICATION_WAIT_MS);
  });

  it('take a replica whose replay is paused out of the rotation once it lags past the bound, the primary when none is left, and all back after resume', async () => {
    await bothInRotation();
    const lagging = replicaTarget('replica-1');
    await node('replica-1').pauseReplay();
    try {
      await servers.primary.query(database, `UPDATE ${PRODUCTS} SET updated_at = now() WHERE id = 1`);
      await eventually('replica-1 out of the rotation', async () => !lagging.inRotation(), REPLICATION_WAIT_MS);
      assert.match(lagging.health.outOfRotationBecause(performance.now())!, /replay lag \d+ ms exceeds 1000 ms/);
      const text = await metrics();
      assert.ok(metricValue(text, 'catalog_db_replay_lag_seconds{target="replica-1"}') > MAX_LAG_MS / 1_000);
      assert.equal(metricValue(text, 'catalog_db_in_rotation{target="replica-1"}'), 0);
      for (let pick = 0; pick < 10; pick += 1) assert.equal(reads().pickReplica().name, 'replica-2');

      await node('replica-2').pauseReplay();
      await servers.primary.query(database, `UPDATE ${PRODUCTS} SET updated_at = now() WHERE id = 1`);
      await eventually(
        'no replica in the rotation',
        async () => reads().replicas.every((replica) => !replica.inRotation()),
        REPLICATION_WAIT_MS,
      );
      const counted = await metrics();
      const scans = await scansDuring(async () => {
        for (const id of IDS) await readAnywhere(id);
      });
      const after = await metrics();
      assert.ok(scans.primary! >= IDS.length, `primary scanned products ${scans.primary} times`);
      assert.equal(scans['replica-1'], 0);
      assert.equal(scans['replica-2'], 0);
      assert.equal(
        metricValue(after, 'catalog_db_replica_fallbacks_total{reason="none_in_rotation"}') -
          metricValue(counted, 'catalog_db_replica_fallbacks_total{reason="none_in_rotation"}'),
        IDS.length,
      );
      assert.equal(metricValue(after, 'catalog_db_in_rotation{target="primary"}'), 1);
    } finally {
      await node('replica-1').resumeReplay();
      await node('replica-2').resumeReplay();
    }
    await bothInRotation();
    const scans = await scansDuring(() => readAnywhere(1));
    assert.equal(scans.primary, 0, 'reads are back on the replicas');
  });

  it('lose no read to a killed replica, nor to both killed; they rejoin once restarted', async () => {
    await bothInRotation();
    const counted = await metrics();
    let completed = 0;
    const failures: unknown[] = [];
    let stop = false;
    // Eight clients reading as fast as they can while the replicas are killed under them.
    const clients = Array.from({ length: 8 }, async (_, client) => {
      for (let request = 0; !stop; request += 1) {
        try {
          await readAnywhere(IDS[(client + request) % IDS.length]!);
          completed += 1;
        } catch (error) {
          failures.push(error);
        }
      }
    });
    const readsGoOn = async (what: string) => {
      const from = completed;
      await eventually(what, async () => completed >= from + 200, REPLICATION_WAIT_MS);
    };
    try {
      await readsGoOn('reads before the kill');
      await node('replica-1').kill();
      await eventually('replica-1 out of the rotation', async () => !replicaTarget('replica-1').inRotation(), REPLICATION_WAIT_MS);
      await readsGoOn('reads with replica-1 dead');
      await node('replica-2').kill();
      await eventually(
        'no replica in the rotation',
        async () => reads().replicas.every((replica) => !replica.inRotation()),
        REPLICATION_WAIT_MS,
      );
      await readsGoOn('reads with both replicas dead');
      await Promise.all([node('replica-1').start(), node('replica-2').start()]);
      await bothInRotation();
      await readsGoOn('reads after the restarts');
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    const after = await metrics();
    const delta = (series: string) => metricValue(after, series) - metricValue(counted, series);
    console.log(
      `${completed} reads, ${failures.length} failed; statements primary +${delta('catalog_db_statements_total{target="primary"}')},`,
      `replica-1 +${delta('catalog_db_statements_total{target="replica-1"}')}, replica-2 +${delta('catalog_db_statements_total{target="replica-2"}')};`,
      `fallbacks: replica_failed +${delta('catalog_db_replica_fallbacks_total{reason="replica_failed"}')},`,
      `left_rotation +${delta('catalog_db_replica_fallbacks_total{reason="left_rotation"}')},`,
      `none_in_rotation +${delta('catalog_db_replica_fallbacks_total{reason="none_in_rotation"}')}`,
    );
    assert.deepEqual(failures, []);
    for (const replica of ['replica-1', 'replica-2']) {
      assert.ok(delta(`catalog_db_target_failures_total{target="${replica}",operation="poll"}`) > 0, `${replica}'s failures counted`);
    }
    assert.ok(delta('catalog_db_replica_fallbacks_total{reason="none_in_rotation"}') > 0);
    const scans = await scansDuring(() => readAnywhere(1));
    assert.equal(scans.primary, 0, 'reads are back on the replicas');
  });

  it('take a promoted replica (no longer in recovery) out of the rotation for good', async () => {
    await bothInRotation();
    await node('replica-2').query('postgres', 'SELECT pg_promote()');
    // Its WAL receiver stops first (out: it streams nothing), then it leaves recovery.
    const because = () => replicaTarget('replica-2').health.outOfRotationBecause(performance.now());
    await eventually('replica-2 out of the rotation, promoted', async () => /not in recovery/.test(because() ?? ''), REPLICATION_WAIT_MS);
    assert.match(because()!, /not in recovery/);
    for (let pick = 0; pick < 6; pick += 1) assert.equal(reads().pickReplica().name, 'replica-1');
  });
});

describe("a role that may not see a replica's WAL receiver", () => {
  const ROLE = 'catalog_gateway_unmonitored';
  const urlAsRole = (url: string) => url.replace('//postgres@', `//${ROLE}@`);

  it('keeps the replica out, saying which grant it needs, and lets it in once granted', async () => {
    await servers.primary.query(database, `CREATE ROLE ${ROLE} LOGIN`);
    for (const grant of [
      `GRANT USAGE ON SCHEMA ${SERVING_SCHEMA} TO ${ROLE}`,
      `GRANT SELECT ON ALL TABLES IN SCHEMA ${SERVING_SCHEMA} TO ${ROLE}`,
    ]) {
      await servers.primary.query(database, grant);
    }
    // Roles reach replica-1 by replay, as everything else (replica-2 is promoted by now).
    const unmonitored = await startGateway(urlAsRole(servers.primary.urlFor(database)), {
      DATABASE_READ_URLS: urlAsRole(node('replica-1').urlFor(database)),
      DATABASE_READ_MAX_LAG_MS: String(MAX_LAG_MS),
      CACHE_TTL_SECONDS: '0',
    });
    try {
      const [replica] = unmonitored.services.reads.replicas;
      const because = () => replica!.health.outOfRotationBecause(performance.now()) ?? '';
      await eventually('the replica out, naming the grant', async () => /pg_read_all_stats/.test(because()), REPLICATION_WAIT_MS);
      assert.equal(replica!.inRotation(), false);
      await servers.primary.query('postgres', `GRANT pg_read_all_stats TO ${ROLE}`);
      await eventually('the replica in the rotation once granted', async () => replica!.inRotation(), REPLICATION_WAIT_MS);
    } finally {
      await unmonitored.close();
    }
  });
});
