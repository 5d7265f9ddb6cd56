// A replica restarted under a gateway whose event loop is saturated, as a long-lived pod that
// keeps the load balancer's connections is: every turn of its loop runs for a while. A statement
// on an open connection is one turn; opening a connection is several (the name's lookup, the TCP
// connect, the startup exchange; authentication adds more in a cluster). The replica must come
// back into this gateway's rotation, and take reads again.
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

let servers: ReplicatedPostgres;
let app: FastifyInstance;

before(async () => {
  servers = await startReplicatedPostgres({ replicas: 1 });
  const database = await servers.createDatabase('saturated');
  await createCatalog(servers.primary.urlFor(database), await readFile(new URL('../fixtures/seed.sql', import.meta.url), 'utf8'));
  await servers.caughtUp();
  // The replica by name, as the chart's per-pod names: every new connection looks it up first.
  const byName = servers.replicas[0]!.urlFor(database).replace('127.0.0.1', 'localhost');
  app = await startGateway(servers.primary.urlFor(database), { DATABASE_READ_URLS: byName, CACHE_TTL_SECONDS: '0' });
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
