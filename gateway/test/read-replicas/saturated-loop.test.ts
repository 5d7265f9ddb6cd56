// Replicas that fail under a gateway whose event loop is saturated, as a long-lived pod that
// keeps the load balancer's connections is: every turn of its loop runs for a while. A statement
// on an open connection is one turn; opening a connection is several (the name's lookup, the TCP
// connect, the startup exchange; authentication adds more in a cluster). A killed replica's reads
// must still be answered, by the primary, whose pool has to open its connections first (its
// reads went to the replica); restarted, the replica must come back into this gateway's rotation,
// and take reads again.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../../../scripts/test/postgres-replication.js';
import { scrapeMetrics } from '../../../scripts/test/metrics.js';
import { createRequestScope } from '../../src/services.js';
import { createCatalog, eventually, metricValue, startGateway } from '../support/gateway.js';

/** How long each turn of the saturated loop runs: under a second, and two of them over. */
const TURN_MS = 600;
const REJOIN_WAIT_MS = 30_000;
/** The fixture catalog's products. */
const PRODUCT_IDS = [1, 2, 3, 5];

let servers: ReplicatedPostgres;
let database: string;
let app: FastifyInstance;

before(async () => {
  servers = await startReplicatedPostgres({ replicas: 1 });
  database = await servers.createDatabase('saturated');
  await createCatalog(servers.primary.urlFor(database), await readFile(new URL('../fixtures/seed.sql', import.meta.url), 'utf8'));
  await servers.caughtUp();
  // Servers by name, as the chart's Service and per-pod names: every new connection looks one up first.
  const byName = (url: string) => url.replace('127.0.0.1', 'localhost');
  app = await startGateway(byName(servers.primary.urlFor(database)), {
    DATABASE_READ_URLS: byName(servers.replicas[0]!.urlFor(database)),
    CACHE_TTL_SECONDS: '0',
  });
});

after(async () => {
  await app?.close();
  await servers?.destroy();
});

/** Makes every turn of the event loop last at least TURN_MS until the returned function is called. */
function saturateEventLoop(): () => void {
  let saturated = true;
  const turn = () => {
    if (!saturated) return;
    const until = performance.now() + TURN_MS;
    while (performance.now() < until);
    setImmediate(turn);
  };
  setImmediate(turn);
  return () => {
    saturated = false;
  };
}

describe('a replica killed under a gateway with a saturated event loop', () => {
  it("loses no read: the replica's reads run on the primary, whose pool opens the connections they need in time", async () => {
    const { primary, replicas } = app.services.reads;
    const replica = replicas[0]!;
    await eventually('the replica in the rotation', async () => replica.inRotation(), REJOIN_WAIT_MS);
    // The primary's pool as reads on replicas leave it: no connection open.
    await servers.primary.query(
      database,
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'catalog-gateway'",
    );
    await eventually("the primary's pool empty", async () => primary.db.pool.totalCount === 0, REJOIN_WAIT_MS);
    const node = servers.replicas[0]!;
    const unsaturate = saturateEventLoop();
    try {
      await node.kill();
      const reads = await Promise.allSettled(
        PRODUCT_IDS.map(async (id) => {
          const { loaders } = createRequestScope(app.services, app.services.reads.pickReplica());
          return (await loaders.productWithFeatures.load(id))?.id;
        }),
      );
      assert.deepEqual(
        reads.map((read) => (read.status === 'fulfilled' ? read.value : `failed: ${(read.reason as Error).message}`)),
        PRODUCT_IDS,
      );
    } finally {
      unsaturate();
      await node.start();
    }
  });
});

describe('a replica restarted under a gateway with a saturated event loop', () => {
  it('comes back into the rotation and serves reads again', async () => {
    const replica = app.services.reads.replicas[0]!;
    await eventually('the replica in the rotation', async () => replica.inRotation(), REJOIN_WAIT_MS);
    const node = servers.replicas[0]!;
    const counters = async () => {
      const text = await scrapeMetrics(app);
      return {
        onReplica: metricValue(text, 'catalog_db_statements_total{target="replica-1"}'),
        fallbacks: ['replica_failed', 'left_rotation', 'none_in_rotation']
          .map((reason) => metricValue(text, `catalog_db_replica_fallbacks_total{reason="${reason}"}`))
          .reduce((sum, count) => sum + count, 0),
      };
    };
    /** Whether one read went to the replica and was answered there (none of its statements fell back to the primary). */
    const servedByReplica = async () => {
      const before = await counters();
      const { loaders } = createRequestScope(app.services, app.services.reads.pickReplica());
      assert.equal((await loaders.productWithFeatures.load(1))?.id, 1);
      const after = await counters();
      return after.onReplica > before.onReplica && after.fallbacks === before.fallbacks;
    };
    const unsaturate = saturateEventLoop();
    try {
      await node.kill();
      await eventually('the replica out of the rotation', async () => !replica.inRotation(), REJOIN_WAIT_MS);
      await node.start();
      await eventually('the replica back in the rotation', async () => replica.inRotation(), REJOIN_WAIT_MS);
      let served = 0;
      await eventually(
        'three reads in a row served by the replica',
        async () => {
          served = (await servedByReplica()) ? served + 1 : 0;
          return served === 3;
        },
        REJOIN_WAIT_MS,
      );
    } catch (error) {
      (error as Error).message += `; out of the rotation because: ${replica.health.outOfRotationBecause(performance.now()) ?? '(in it)'}`;
      throw error;
    } finally {
      unsaturate();
    }
  });
});
