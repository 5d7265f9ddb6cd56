import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { CHANGE_LOG_TABLE } from '@catalog/contract';
import { startReplicatedPostgres, type ReplicatedPostgres } from '../../../scripts/test/postgres-replication.js';
import { listenForCaptureNotifications } from '../../../scripts/test/capture-notifications.js';
import { runOk } from '../../../scripts/test/process.js';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { scrapeMetrics } from '../../../scripts/test/metrics.js';
import { CAPTURE_BOUND_MS, CLAIM_EVERY_MS } from '../../src/capture/change-capture.js';
import { metricValue, WRITE_TOKEN } from '../support/gateway.js';
import { createCoherenceCatalog } from '../coherence/catalog.js';
import { startGatewayProcess, type GatewayProcess } from '../coherence/gateway-process.js';
import { CACHED_READS, send, uncachedRead, type ProductRead, type Seen } from '../read-replicas/product-reads.js';

/**
 * Changes made straight in Postgres — psql on a connection of its own, not through a gateway —
 * reach every tier (gateway/README.md, "Consistency", rule 11): two gateway processes that have
 * the product cached in memory and in Redis, reading a streaming replica whose replay is paused,
 * show the change by REST and GraphQL within CAPTURE_BOUND_MS of the commit, and never the old
 * row again (the paused replica must not bring it back).
 */
const PRODUCTS = 40;
const PSQL = join(process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin', 'psql');
/** How long reads keep being checked after a change became visible everywhere. */
const WATCH_AFTER_MS = 1_000;
const STYLES_QUERY = 'query Styles($id: ID!) { product(id: $id) { styles { name skus { size } } } }';

describe('changes made in the database by hand reach every tier of every gateway', { timeout: 600_000 }, () => {
  let servers: ReplicatedPostgres;
  let redis: RedisServer;
  let databaseUrl: string;
  let gateways: GatewayProcess[] = [];

  before(async () => {
    [servers, redis] = await Promise.all([startReplicatedPostgres({ replicas: 1 }), startRedis()]);
    const database = await servers.createDatabase('capture');
    databaseUrl = await createCoherenceCatalog(PRODUCTS, servers.primary.urlFor(database));
    await servers.caughtUp();
    const env = {
      DATABASE_URL: databaseUrl,
      DATABASE_READ_URLS: servers.replicas[0]!.urlFor(database),
      // A paused replica stays in the rotation: only rule 8 keeps its old rows out.
      DATABASE_READ_MAX_LAG_MS: '60000',
      REDIS_URL: redis.url,
      WRITE_TOKEN,
      CACHE_TTL_SECONDS: '300',
      LOG_LEVEL: 'warn',
    };
    gateways = await Promise.all(['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, env)));
  });
  after(async () => {
    await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
    await Promise.allSettled([redis?.stop(), servers?.destroy()]);
  });

  /** Runs `sql` with psql against the primary, as a DBA would; returns when psql exits (after the commit). */
  const psql = (sql: string) => runOk(PSQL, [databaseUrl, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql]);

  const counted = async (series: string) =>
    (await Promise.all(gateways.map(async (gateway) => metricValue(await scrapeMetrics(gateway), series)))).reduce((a, b) => a + b, 0);

  /** Waits until the gateways claimed and deleted every entry of the change log. */
  async function waitForEmptyLog(): Promise<void> {
    const database = new URL(databaseUrl).pathname.slice(1);
    const started = performance.now();
    for (;;) {
      const [row] = await servers.primary.query<{ waiting: number }>(database, `SELECT count(*)::int AS waiting FROM ${CHANGE_LOG_TABLE}`);
      if (row!.waiting === 0) return;
      assert.ok(performance.now() - started <= CAPTURE_BOUND_MS, `${row!.waiting} entries still wait in the change log`);
      await sleep(20);
    }
  }

  /** Reads `id` every cached way on both gateways, twice: after it, every tier holds each answer. */
  async function cacheEverywhere(id: number, reads: readonly ProductRead[] = CACHED_READS): Promise<void> {
    const memoryHits = 'catalog_cache_lookups_total{backend="memory",result="hit"}';
    const redisHits = 'catalog_cache_lookups_total{backend="redis",result="hit"}';
    const [memoryBefore, redisBefore] = [await counted(memoryHits), await counted(redisHits)];
    for (const read of reads) await read.read(gateways[0]!, id);
    // The second gateway finds them in Redis; the second round in each gateway's memory.
    for (let round = 0; round < 2; round += 1) for (const gateway of gateways) for (const read of reads) await read.read(gateway, id);
    assert.ok((await counted(redisHits)) > redisBefore, `product ${id}: no answer came from Redis`);
    assert.ok((await counted(memoryHits)) > memoryBefore, `product ${id}: no answer came from a gateway's memory`);
  }

  /**
   * Waits until every read of `id` on both gateways shows `expected`, at most CAPTURE_BOUND_MS
   * from `since`; then keeps reading for WATCH_AFTER_MS, every answer still `expected`. Returns
   * how long it took to become visible everywhere.
   */
  async function visibleEverywhere(
    id: number,
    since: number,
    expected: (seen: Seen) => boolean,
    reads: readonly ProductRead[] = [...CACHED_READS, uncachedRead],
  ): Promise<number> {
    const pending = new Set(gateways.flatMap((gateway) => reads.map((read) => ({ gateway, read }))));
    let last = '';
    while (pending.size > 0) {
      for (const probe of [...pending]) {
        const seen = await probe.read.read(probe.gateway, id);
        if (expected(seen)) pending.delete(probe);
        else last = `${probe.read.label} via ${probe.gateway.name} still shows ${JSON.stringify(seen)}`;
      }
      assert.ok(performance.now() - since <= CAPTURE_BOUND_MS, `not visible within ${CAPTURE_BOUND_MS} ms: ${last}`);
    }
    const visibleAfter = performance.now() - since;
    const watchUntil = performance.now() + WATCH_AFTER_MS;
    while (performance.now() < watchUntil) {
      for (const gateway of gateways) {
        for (const read of reads) {
          const seen = await read.read(gateway, id);
          assert.ok(expected(seen), `${read.label} via ${gateway.name} went back to ${JSON.stringify(seen)}`);
        }
      }
    }
    return visibleAfter;
  }

  it('an UPDATE: visible on both gateways by REST and GraphQL, and the paused replica never brings the old row back', async () => {
    const id = 3;
    await cacheEverywhere(id);
    const behindWrites = 'catalog_db_replica_fallbacks_total{reason="behind_writes"}';
    const behindBefore = await counted(behindWrites);
    const replica = servers.replicas[0]!;
    await replica.pauseReplay();
    try {
      const since = performance.now();
      await psql(`UPDATE catalog.products SET slogan = 'changed by hand' WHERE id = ${id}`);
      const ms = await visibleEverywhere(id, since, (seen) => seen?.slogan === 'changed by hand');
      console.log(`UPDATE by psql visible on both gateways, every read, after ${Math.round(ms)} ms`);
      // The replica was asked and found behind: without rule 8 it would have served the old row.
      assert.ok((await counted(behindWrites)) > behindBefore, 'no read found the paused replica behind the change');
    } finally {
      await replica.resumeReplay();
    }
  });

  it('an INSERT of a product and a DELETE of one', async () => {
    const created = PRODUCTS + 100;
    for (const gateway of gateways) assert.equal(await CACHED_READS[0]!.read(gateway, created), null);
    let since = performance.now();
    await psql(`INSERT INTO catalog.products (id, name, slogan) VALUES (${created}, 'Made by hand', 'fresh')`);
    await visibleEverywhere(created, since, (seen) => seen?.name === 'Made by hand');

    const deleted = 4;
    await cacheEverywhere(deleted);
    since = performance.now();
    await psql(`DELETE FROM catalog.products WHERE id = ${deleted}`);
    await visibleEverywhere(deleted, since, (seen) => seen === null);
  });

  it("a child row: a style with a sku inserted, then the sku deleted, show in the product's styles", async () => {
    const id = 5;
    const stylesRead: ProductRead = {
      label: 'REST GET /products/:id/styles',
      async read(gateway, product) {
        const { status, json } = await send(gateway, 'GET', `/products/${product}/styles`);
        assert.equal(status, 200);
        const styles = (json as { results: { name: string; skus: Record<string, { size: string }> }[] }).results;
        return {
          name: styles
            .map(
              (style) =>
                `${style.name}:${Object.values(style.skus)
                  .map((sku) => sku.size)
                  .join('+')}`,
            )
            .sort()
            .join(','),
          slogan: null,
        };
      },
    };
    const graphqlStylesRead: ProductRead = {
      label: 'GraphQL POST product styles',
      async read(gateway, product) {
        const { status, json } = await send(gateway, 'POST', '/graphql', {
          body: { query: STYLES_QUERY, variables: { id: String(product) } },
        });
        assert.equal(status, 200);
        const styles = (json as { data: { product: { styles: { name: string; skus: { size: string }[] }[] } } }).data.product.styles;
        return {
          name: styles
            .map((style) => `${style.name}:${style.skus.map((sku) => sku.size).join('+')}`)
            .sort()
            .join(','),
          slogan: null,
        };
      },
    };
    const reads = [stylesRead, graphqlStylesRead];
    await cacheEverywhere(id, reads);
    let since = performance.now();
    await psql(
      `WITH style AS (INSERT INTO catalog.styles (product_id, name) VALUES (${id}, 'Hand-dyed') RETURNING id)
       INSERT INTO catalog.skus (style_id, size, quantity) SELECT id, 'XL', 3 FROM style`,
    );
    await visibleEverywhere(id, since, (seen) => seen?.name === 'Hand-dyed:XL,Plain:', reads);
    since = performance.now();
    await psql(`DELETE FROM catalog.skus WHERE size = 'XL'`);
    await visibleEverywhere(id, since, (seen) => seen?.name === 'Hand-dyed:,Plain:', reads);
  });

  // Replica mode fires no ordinary trigger: replication and restore tools write in it, and so
  // does logical replication's apply process, which fires row triggers only.
  it('a change made in replica mode (session_replication_role = replica), a product and a child row', async () => {
    const id = 13;
    await cacheEverywhere(id);
    let since = performance.now();
    await psql(`SET session_replication_role = replica; UPDATE catalog.products SET slogan = 'in replica mode' WHERE id = ${id}`);
    await visibleEverywhere(id, since, (seen) => seen?.slogan === 'in replica mode');

    const featureRead: ProductRead = {
      label: 'REST GET /products/:id (features)',
      async read(gateway, product) {
        const { status, json } = await send(gateway, 'GET', `/products/${product}`);
        assert.equal(status, 200);
        const features = (json as { features: { feature: string }[] }).features;
        return { name: features.map(({ feature }) => feature).join(','), slogan: null };
      },
    };
    const owner = id + 1;
    await cacheEverywhere(owner, [featureRead]);
    since = performance.now();
    await psql(
      `SET session_replication_role = replica; INSERT INTO catalog.features (product_id, feature, value) VALUES (${owner}, 'Replicated', 'yes')`,
    );
    await visibleEverywhere(owner, since, (seen) => seen?.name.split(',').includes('Replicated') ?? false, [featureRead]);
  });

  it('a change applied by logical replication: a PIM database publishing its products into the catalog', async () => {
    const id = 15;
    const catalog = new URL(databaseUrl).pathname.slice(1);
    const pim = await servers.createDatabase('pim');
    const inPim = (sql: string) => servers.primary.query(pim, sql);
    // The PIM's own table (only the columns it owns) holds the row before the subscription, so only its update travels.
    await inPim(`CREATE SCHEMA catalog`);
    await inPim(`CREATE TABLE catalog.products (id bigint PRIMARY KEY, slogan text)`);
    await inPim(`INSERT INTO catalog.products (id, slogan) VALUES (${id}, 'before the PIM')`);
    await inPim(`CREATE PUBLICATION pim_products FOR TABLE catalog.products`);
    // On one server a subscription cannot make its own slot (CREATE SUBSCRIPTION would wait for itself).
    await inPim(`SELECT pg_create_logical_replication_slot('catalog_from_pim', 'pgoutput')`);
    await servers.primary.query(
      catalog,
      `CREATE SUBSCRIPTION from_pim CONNECTION 'host=127.0.0.1 port=${servers.primary.port} user=postgres dbname=${pim}'
         PUBLICATION pim_products WITH (create_slot = false, slot_name = 'catalog_from_pim', copy_data = false)`,
    );
    try {
      await cacheEverywhere(id);
      const since = performance.now();
      await inPim(`UPDATE catalog.products SET slogan = 'from the PIM' WHERE id = ${id}`);
      const ms = await visibleEverywhere(id, since, (seen) => seen?.slogan === 'from the PIM');
      console.log(`UPDATE in the PIM, applied by logical replication, visible on both gateways after ${Math.round(ms)} ms`);
    } finally {
      await servers.primary.query(catalog, 'DROP SUBSCRIPTION from_pim');
    }
  });

  it('a write through a gateway is not captured again: the change log records nothing for it', async () => {
    const entries = () =>
      servers.primary
        .query<{ last: string }>(
          new URL(databaseUrl).pathname.slice(1),
          `SELECT last_value::text || ':' || is_called AS last FROM catalog_capture.changes_id_seq`,
        )
        .then(([row]) => row!.last);
    const before = await entries();
    const { status } = await send(gateways[0]!, 'PUT', '/products/6', { body: { slogan: 'through the gateway' }, token: WRITE_TOKEN });
    assert.equal(status, 200);
    assert.equal(await entries(), before, 'the gateway write was recorded in the change log');
  });

  it('end-to-end: from commit to every gateway showing it, over a series of updates', async () => {
    const id = 7;
    await cacheEverywhere(id);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const delays: number[] = [];
    try {
      for (let version = 1; version <= 60; version += 1) {
        const slogan = `series ${version}`;
        await client.query('UPDATE catalog.products SET slogan = $1 WHERE id = $2', [slogan, id]);
        const committed = performance.now();
        const shown = new Set<GatewayProcess>();
        while (shown.size < gateways.length) {
          for (const gateway of gateways) if ((await CACHED_READS[0]!.read(gateway, id))?.slogan === slogan) shown.add(gateway);
          assert.ok(performance.now() - committed <= CAPTURE_BOUND_MS, `version ${version} not visible within ${CAPTURE_BOUND_MS} ms`);
        }
        delays.push(performance.now() - committed);
      }
    } finally {
      await client.end();
    }
    delays.sort((a, b) => a - b);
    const at = (share: number) => delays[Math.min(delays.length - 1, Math.floor(share * delays.length))]!.toFixed(1);
    console.log(`capture, commit to visible on both gateways (REST, cached): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`);
  });

  /**
   * A committed entry held claimed by a connection of the test's, as a gateway in the middle of
   * announcing it holds it: the gateways' claims skip it, statements see it waiting. `release`
   * deletes it, as that gateway's claim ends. The entry names no product: announcing it is nothing.
   */
  async function holdWaitingEntry(): Promise<{ release(): Promise<void> }> {
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    for (;;) {
      const { rows } = await holder.query<{ id: string }>(`INSERT INTO ${CHANGE_LOG_TABLE} DEFAULT VALUES RETURNING id`);
      await holder.query('BEGIN');
      const { rowCount } = await holder.query(`SELECT 1 FROM ${CHANGE_LOG_TABLE} WHERE id = $1 FOR UPDATE SKIP LOCKED`, [rows[0]!.id]);
      if (rowCount === 1) {
        return {
          async release() {
            await holder.query(`DELETE FROM ${CHANGE_LOG_TABLE} WHERE id = $1`, [rows[0]!.id]);
            await holder.query('COMMIT');
            await holder.end();
          },
        };
      }
      // A gateway's poll claimed it first: another one.
      await holder.query('ROLLBACK');
    }
  }

  it('statements made while an older entry waits send no NOTIFY, and are announced within the bound all the same', async () => {
    const id = 9;
    await cacheEverywhere(id);
    const notifications = await listenForCaptureNotifications(databaseUrl);
    const writer = new pg.Client({ connectionString: databaseUrl });
    await writer.connect();
    try {
      // The control: on an empty log a statement notifies.
      await waitForEmptyLog();
      let since = performance.now();
      await writer.query('UPDATE catalog.products SET slogan = $1 WHERE id = $2', ['on an empty log', id]);
      await visibleEverywhere(id, since, (seen) => seen?.slogan === 'on an empty log');
      assert.equal(await notifications.received(), 1, 'a statement on an empty log sent no NOTIFY');

      const held = await holdWaitingEntry();
      try {
        const statements = 20;
        for (let statement = 1; statement <= statements; statement += 1) {
          const slogan = `behind a waiting entry ${statement}`;
          since = performance.now();
          await writer.query('UPDATE catalog.products SET slogan = $1 WHERE id = $2', [slogan, id]);
          if (statement % 5 === 0) await visibleEverywhere(id, since, (seen) => seen?.slogan === slogan);
        }
        const behind = (await notifications.received()) - 1;
        console.log(`${statements} statements behind a waiting entry: ${behind} notifications`);
        assert.equal(behind, 0, `${behind} of ${statements} statements made behind a waiting entry sent a NOTIFY`);
      } finally {
        await held.release();
      }
    } finally {
      await Promise.allSettled([writer.end(), notifications.close()]);
    }
  });

  it("a change whose statement saw an older entry waiting, committed after the claimers' last claim came back empty, is announced within the bound", async () => {
    const id = 10;
    await cacheEverywhere(id);
    const notifications = await listenForCaptureNotifications(databaseUrl);
    const writer = new pg.Client({ connectionString: databaseUrl });
    await writer.connect();
    try {
      const held = await holdWaitingEntry();
      await writer.query('BEGIN');
      await writer.query('UPDATE catalog.products SET slogan = $1 WHERE id = $2', ['committed late', id]);
      await held.release();
      // The claimers' runs end meanwhile on a log that holds nothing they can see.
      await sleep(3 * CLAIM_EVERY_MS);
      const since = performance.now();
      await writer.query('COMMIT');
      const ms = await visibleEverywhere(id, since, (seen) => seen?.slogan === 'committed late');
      console.log(
        `a change committed without a NOTIFY, after the claimers' last empty claim: visible on both gateways after ${Math.round(ms)} ms`,
      );
      assert.equal(await notifications.received(), 0, 'the statement made behind a waiting entry sent a NOTIFY');
    } finally {
      await Promise.allSettled([writer.end(), notifications.close()]);
    }
  });

  it('a backlog left while no gateway listened is replayed when one starts', async () => {
    const id = 8;
    await cacheEverywhere(id);
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    // Redis still holds the old answers: only the replayed change can void them.
    await psql(`UPDATE catalog.products SET slogan = 'changed while nobody listened' WHERE id = ${id}`);
    await Promise.all(gateways.map((gateway) => gateway.start()));
    const since = performance.now();
    await visibleEverywhere(id, since, (seen) => seen?.slogan === 'changed while nobody listened');
  });
});
