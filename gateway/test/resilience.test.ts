import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../../scripts/test/postgres.js';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import { createCatalog, createFixtureDatabase, eventually, graphql, startGateway } from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const seed = () => readFile(new URL('fixtures/seed.sql', import.meta.url), 'utf8');

describe('Redis killed mid-test', () => {
  let redis: RedisServer;
  let app: FastifyInstance;
  before(async () => {
    redis = await startRedis();
    app = await startGateway(await createFixtureDatabase(), { REDIS_URL: redis.url, REDIS_WRITE_WAIT_MS: '300' });
  });
  after(async () => {
    await app.close();
    await redis.stop();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });
  const write = (slogan: string) =>
    app.inject({
      method: 'PUT',
      url: '/products/2',
      headers: { authorization: 'Bearer test-write-token-0123456789' },
      payload: { slogan },
    });

  it('keeps serving reads from Postgres, refuses writes it cannot announce, counts the failures, and reconnects by itself', async () => {
    assert.equal((await get('/products/1')).statusCode, 200);
    await redis.kill();

    for (const url of ['/products/1', '/products/2', '/products/1/styles', '/products?page=1&count=3', '/products/5/related']) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, `${url} while Redis is down: ${response.body}`);
    }
    const page = await graphql(app, '{ product(id: 2) { name } }');
    assert.equal(page.statusCode, 200);
    const sloganBefore = (await get('/products/2')).json().slogan;
    const refused = await write('Written while Redis was down');
    assert.equal(refused.statusCode, 503, refused.body);
    assert.match(refused.json().error, /nothing was written/);
    assert.equal((await get('/products/2')).json().slogan, sloganBefore, 'nothing was written');
    const metrics = await scrapeMetrics(app);
    // Failed reads are counted; once the circuit breaker opens, the reads it skips are counted too.
    const redisMetrics = metrics
      .split('\n')
      .filter((line) => /^catalog_(cache_errors_total|redis_circuit)/.test(line))
      .join('\n');
    assert.match(
      redisMetrics,
      /catalog_cache_errors_total\{backend="redis",operation="get"\} [1-9]|catalog_redis_circuit_rejections_total [1-9]/,
      redisMetrics,
    );
    assert.match(metrics, /catalog_cache_errors_total\{backend="redis",operation="prepare"\} [1-9]/);

    await redis.start();
    const inspector = new Redis(redis.url);
    try {
      // Back in use without a restart: new responses land in Redis again, and writes are taken.
      let page = 0;
      // Reconnecting backs off up to 2 s between attempts, and the circuit probes once a second.
      await eventually(
        'responses cached in Redis again',
        async () => {
          page += 1;
          await get(`/products?page=${page}&count=1`);
          await app.services.cache.settled();
          return (await inspector.keys('catalog:3:response:*')).length > 0;
        },
        15_000,
      );
      const taken = await write('Written once Redis was back');
      assert.equal(taken.statusCode, 200, taken.body);
      assert.equal((await get('/products/2')).json().slogan, 'Written once Redis was back');
    } finally {
      inspector.disconnect();
    }
  });
});

describe('Postgres stopped mid-test', () => {
  let postgres: PostgresServer;
  let app: FastifyInstance;
  before(async () => {
    postgres = await startPostgres();
    const databaseUrl = await postgres.createDatabase('resilience');
    await createCatalog(databaseUrl, await seed());
    app = await startGateway(databaseUrl, { DB_POOL_MAX: '4' });
  });
  after(async () => {
    await app.close();
    await postgres.destroy();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });

  it('answers 503 with Retry-After (the pod staying ready for what it can serve), then recovers when Postgres is back', async () => {
    assert.equal((await get('/products/1')).statusCode, 200);
    await postgres.stop();

    for (const url of ['/products/2', '/products/2/styles', '/products?page=2&count=1']) {
      const started = performance.now();
      const response = await get(url);
      assert.equal(response.statusCode, 503, `${url}: ${response.body}`);
      assert.ok(Number(response.headers['retry-after']) > 0, 'Retry-After names a delay');
      assert.match(response.json().error, /database/);
      // Reported, not asserted (no timing assertions): shows the failure is immediate.
      console.log(`${url} with Postgres down answered in ${(performance.now() - started).toFixed(0)} ms`);
    }
    const graph = await graphql(app, '{ product(id: 3) { name } }');
    assert.equal(graph.statusCode, 503);
    assert.ok(Number(graph.headers['retry-after']) > 0);
    // Cached responses keep being served while the database is away (readiness: readiness.test.ts).
    assert.equal((await get('/products/1')).statusCode, 200);

    await postgres.start();
    await eventually('serving from Postgres again', async () => (await get('/products/2')).statusCode === 200);
    assert.equal((await graphql(app, '{ product(id: 3) { name } }')).json().data.product.name, 'Morning Joggers');
  });

  it('answers 503 when no pool client frees up in time, instead of queueing forever', async () => {
    const { pool } = app.services.db;
    // Hold every client of the pool; on a busy machine a connect may time out, so retry it.
    const held: pg.PoolClient[] = [];
    try {
      for (let attempt = 0; held.length < app.services.config.DB_POOL_MAX && attempt < 50; attempt += 1) {
        const client = await pool.connect().catch(() => undefined);
        if (client) held.push(client);
      }
      assert.equal(held.length, app.services.config.DB_POOL_MAX, 'holding the whole pool');
      const response = await get('/products/5/styles');
      assert.equal(response.statusCode, 503);
      assert.match(response.json().error, /database busy: no connection became free within 1000 ms/);
      assert.equal(response.headers['retry-after'], '1');
    } finally {
      for (const client of held) client.release();
    }
    assert.equal((await get('/products/5/styles')).statusCode, 200);
  });

  it('cancels statements that run past the statement timeout with a 503', async () => {
    const slow = await startGateway(postgres.urlFor(new URL(app.services.config.DATABASE_URL!).pathname.slice(1)), {
      DB_STATEMENT_TIMEOUT_MS: '200',
      CACHE_TTL_SECONDS: '0',
    });
    const locker = new pg.Client({ connectionString: slow.services.config.DATABASE_URL });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE catalog.products IN ACCESS EXCLUSIVE MODE');
      const response = await slow.inject({ method: 'GET', url: '/products/1' });
      assert.equal(response.statusCode, 503);
      assert.match(response.json().error, /timed out/);
      await locker.query('ROLLBACK');
      assert.equal((await slow.inject({ method: 'GET', url: '/products/1' })).statusCode, 200);
    } finally {
      await locker.end();
      await slow.close();
    }
  });
});
