// A replica URL that reaches more than one server (gateway/README.md, "Consistency", rule 8): a
// load-balanced address in front of two streaming replicas (scripts/test/balanced-address.ts, as
// a CloudNativePG `-ro` Service or a PgBouncer pool over several replicas spreads connections),
// one caught up, the other with its replay paused. The gateway polls a replay position on one
// connection while its pooled connections may reach the other server, so the polled position must
// bound only statements sent to the server it was read from. Each write is read through the REST
// route at once after its 2xx, and through a GraphQL query no cache has seen once the polls have
// passed it.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import { startBalancedAddress, type BalancedAddress } from '../../../scripts/test/balanced-address.js';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../../../scripts/test/postgres-replication.js';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { startGatewayProcess, type GatewayProcess } from '../coherence/gateway-process.js';
import { metricValue, WRITE_TOKEN } from '../support/gateway.js';
import { restRead, send, uncachedRead } from './product-reads.js';

const CATALOG_PRODUCTS = 20;
/** Writes, each followed by its reads. */
const ROUNDS = 40;
/** Two polls of the replica's position (every 100 ms) and then some. */
const POLLS_PASSED_MS = 250;
const REPLICA_STATEMENTS = 'catalog_db_statements_total{target="replica-1"}';
const ANOTHER_SERVER = 'catalog_db_replica_fallbacks_total{reason="another_server"}';

let servers: ReplicatedPostgres;
let balanced: BalancedAddress;
let redis: RedisServer;
let dataDir: string;
let gateway: GatewayProcess;

before(async () => {
  [servers, redis] = await Promise.all([startReplicatedPostgres({ replicas: 2 }), startRedis()]);
  const database = await servers.createDatabase('balanced');
  dataDir = await mkdtemp(join(tmpdir(), 'catalog-balanced-'));
  await generateCatalog({ outDir: dataDir, products: CATALOG_PRODUCTS, seed: 3 });
  await loadCatalog({ databaseUrl: servers.primary.urlFor(database), dataDir, logger: pino({ level: 'silent' }) });
  await servers.caughtUp();
  const [current, paused] = servers.replicas;
  await paused!.pauseReplay();
  // The first connection (the gateway's position poll) reaches the replica that keeps up; pooled
  // connections then take turns between both.
  balanced = await startBalancedAddress([current!.port, paused!.port]);
  const viaBalanced = new URL(current!.urlFor(database));
  viaBalanced.port = String(balanced.port);
  gateway = await startGatewayProcess('gateway', {
    DATABASE_URL: servers.primary.urlFor(database),
    DATABASE_READ_URLS: viaBalanced.toString(),
    // At its most: the paused replica could be kept out by nothing but rule 8.
    DATABASE_READ_MAX_LAG_MS: '300000',
    REDIS_URL: redis.url,
    WRITE_TOKEN,
    CACHE_TTL_SECONDS: '3600',
  });
});

after(async () => {
  await gateway?.stop();
  await Promise.allSettled([
    balanced?.close(),
    redis?.stop(),
    servers?.destroy(),
    dataDir && rm(dataDir, { recursive: true, force: true }),
  ]);
});

const metric = async (series: string) => metricValue(await (await fetch(gateway.metricsUrl)).text(), series);

describe('a replica URL that reaches two servers', () => {
  it('never answers with a row older than an acknowledged write, and still reads the replica it polls', async () => {
    const [statementsBefore, elsewhereBefore] = [await metric(REPLICA_STATEMENTS), await metric(ANOTHER_SERVER)];
    const stale: string[] = [];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const id = 1 + (round % CATALOG_PRODUCTS);
      const name = `balanced ${round}`;
      const written = await send(gateway, 'PUT', `/products/${id}`, { body: { name }, token: WRITE_TOKEN });
      assert.equal(written.status, 200, JSON.stringify(written.json));
      // At once, and again once the position polls have certainly passed the write.
      for (const [read, afterMs] of [
        [restRead, 0],
        [uncachedRead, POLLS_PASSED_MS],
      ] as const) {
        await sleep(afterMs);
        const seen = await read.read(gateway, id);
        if (seen?.name !== name)
          stale.push(`round ${round}, ${read.label} after ${afterMs} ms: ${seen?.name ?? 'not found'} instead of ${name}`);
      }
    }
    // Statements sent to the replica, less those whose connection reached the other server.
    const elsewhere = (await metric(ANOTHER_SERVER)) - elsewhereBefore;
    const replicaStatements = (await metric(REPLICA_STATEMENTS)) - statementsBefore - elsewhere;
    console.log(
      `balanced address: connections per server ${balanced.connections.join(' / ')}; ` +
        `statements run on the polled replica ${replicaStatements}, on the primary for reaching the other ${elsewhere}; ` +
        `stale ${stale.length} of ${2 * ROUNDS}`,
    );
    assert.deepEqual(stale, []);
    // Not everything went to the primary: the replica the gateway polls took reads.
    assert.ok(replicaStatements >= ROUNDS, `only ${replicaStatements} statements ran on the polled replica`);
  });
});
