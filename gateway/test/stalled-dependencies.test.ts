import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { startPostgres, type PostgresServer } from '../../scripts/test/postgres.js';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import { createCatalog, createFixtureDatabase, eventually, graphql, metricValue, startGateway } from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const seed = () => readFile(new URL('fixtures/seed.sql', import.meta.url), 'utf8');

describe('Postgres frozen (SIGSTOP): alive but silent', () => {
  let postgres: PostgresServer;
  let app: FastifyInstance;
  before(async () => {
    postgres = await startPostgres();
    const databaseUrl = await postgres.createDatabase('frozen');
    await createCatalog(databaseUrl, await seed());
    app = await startGateway(databaseUrl, {
      DB_POOL_MAX: '4',
      DB_STATEMENT_TIMEOUT_MS: '300',
      DB_POOL_ACQUIRE_TIMEOUT_MS: '300',
      CACHE_TTL_SECONDS: '0',
    });
  });
  after(async () => {
    await postgres.thaw().catch(() => {});
    await app.close();
    await postgres.destroy();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });

  it('answers 503 with Retry-After (never 500) on REST and GraphQL, then recovers when thawed', async () => {
    assert.equal((await get('/products/1')).statusCode, 200, 'pool connections are open');
    await postgres.freeze();
    try {
      for (const url of ['/products/2', '/products/2/styles']) {
        const response = await get(url);
        assert.equal(response.statusCode, 503, `${url}: ${response.body}`);
        assert.ok(Number(response.headers['retry-after']) > 0, 'Retry-After names a delay');
        assert.match(response.json().error, /database/);
      }
      const graph = await graphql(app, '{ product(id: 3) { name } }');
      assert.equal(graph.statusCode, 503, graph.body);
      assert.ok(Number(graph.headers['retry-after']) > 0);
    } finally {
      await postgres.thaw();
    }
    await eventually('served again', async () => (await get('/products/2')).statusCode === 200);
  });
});

describe('Redis frozen (SIGSTOP): connections open, nothing answers', () => {
  let redis: RedisServer;
  let app: FastifyInstance;
  before(async () => {
    redis = await startRedis();
    app = await startGateway(await createFixtureDatabase(), { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '100' });
  });
  after(async () => {
    redis.thaw();
    await app.close();
    await redis.stop();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });
  const metrics = () => scrapeMetrics(app);

  it('stops asking Redis after a few timeouts (circuit open), serves every request from Postgres, and closes the circuit when Redis answers again', async () => {
    assert.equal((await get('/products/1')).statusCode, 200);
    redis.freeze();
    const misses = 40;
    try {
      for (let index = 0; index < misses; index += 1) {
        // Distinct URLs: every one misses the in-process cache and would ask Redis.
        const response = await get(`/products?page=${index + 1}&count=1`);
        assert.equal(response.statusCode, 200, response.body);
      }
      const text = await metrics();
      assert.equal(metricValue(text, 'catalog_redis_circuit_state'), 1, 'the circuit is open');
      const timedOut = metricValue(text, 'catalog_cache_errors_total{backend="redis",operation="get"}');
      assert.ok(timedOut >= 1 && timedOut < misses / 2, `only the first lookups waited for Redis (${timedOut} of ${misses})`);
      assert.ok(metricValue(text, 'catalog_redis_circuit_rejections_total') > misses / 2, 'the rest skipped it');
    } finally {
      redis.thaw();
    }
    // One probe a second, each within the command timeout: a busy machine may need a few.
    let probe = misses;
    await eventually(
      'circuit closed again',
      async () => {
        probe += 1;
        await get(`/products?page=${probe}&count=1`);
        return metricValue(await metrics(), 'catalog_redis_circuit_state') === 0;
      },
      15_000,
    );
  });
});

describe('overload: more statements than the pool can run', () => {
  let postgres: PostgresServer;
  let app: FastifyInstance;
  let databaseUrl: string;
  before(async () => {
    postgres = await startPostgres();
    databaseUrl = await postgres.createDatabase('overload');
    await createCatalog(databaseUrl, await seed());
    app = await startGateway(databaseUrl, {
      DB_POOL_MAX: '2',
      DB_QUEUE_MAX: '2',
      DB_POOL_ACQUIRE_TIMEOUT_MS: '20000',
      DB_STATEMENT_TIMEOUT_MS: '20000',
      CACHE_TTL_SECONDS: '0',
    });
  });
  after(async () => {
    await app.close();
    await postgres.destroy();
  });

  it('refuses the excess at once with 503 + Retry-After instead of letting it wait for a connection, and serves the admitted', async () => {
    const pg = (await import('pg')).default;
    const locker = new pg.Client({ connectionString: databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE catalog.products IN ACCESS EXCLUSIVE MODE');
    const settled: Array<{ status: number; body: string; retryAfter?: string }> = [];
    // List pages run one statement each (no batching across pages): 12 statements for 2 connections.
    const requests = Array.from({ length: 12 }, (_, index) =>
      app.inject({ method: 'GET', url: `/products?page=${index + 1}&count=1` }).then((response) => {
        settled.push({
          status: response.statusCode,
          body: response.body,
          retryAfter: response.headers['retry-after'] as string | undefined,
        });
      }),
    );
    try {
      // While the admitted statements are still blocked by the lock, the rest are already answered.
      await eventually('the excess refused while the lock holds', async () => settled.length >= 8);
      for (const refused of settled) {
        assert.equal(refused.status, 503, refused.body);
        assert.match(JSON.parse(refused.body).error, /database overloaded/);
        assert.equal(refused.retryAfter, '1');
      }
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await Promise.all(requests);
    assert.ok(settled.filter((response) => response.status === 200).length >= 2, 'the admitted ones are served once the lock is gone');
    assert.match(await scrapeMetrics(app), /catalog_db_admission_rejections_total\{reason="queue full"\} [1-9]/);
  });
});

describe('logs during an outage', () => {
  const OUTAGE = 200;
  let postgres: PostgresServer;
  let databaseUrl: string;
  before(async () => {
    postgres = await startPostgres();
    databaseUrl = await postgres.createDatabase('logflood');
    await createCatalog(databaseUrl, await seed());
  });
  after(async () => {
    await postgres.destroy();
  });

  /** A gateway whose log lines are collected, and a way to stop its database and fail requests. */
  async function gatewayLoggingTo(lines: Array<Record<string, unknown>>, failureSummaryMs: number) {
    const { Writable } = await import('node:stream');
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const { pino } = await import('pino');
    const { buildApp } = await import('../src/app.js');
    const { loadConfig } = await import('../src/config.js');
    const app = await buildApp(loadConfig({ DATABASE_URL: databaseUrl, CACHE_TTL_SECONDS: '0', LOG_LEVEL: 'warn', METRICS_PORT: '0' }), {
      logger: pino({ level: 'warn' }, sink),
      failureSummaryMs,
    });
    await app.ready();
    return app;
  }
  const failuresIn = (lines: Array<Record<string, unknown>>) => lines.filter((line) => String(line.msg).startsWith('request failed'));
  const withStack = (lines: Array<Record<string, unknown>>) =>
    failuresIn(lines).filter((line) => typeof (line.err as { stack?: unknown } | undefined)?.stack === 'string');
  const summarised = (lines: Array<Record<string, unknown>>) =>
    failuresIn(lines).reduce((sum, line) => sum + (typeof line.count === 'number' ? line.count : 0), 0);
  async function outage(app: Awaited<ReturnType<typeof gatewayLoggingTo>>): Promise<void> {
    for (let index = 0; index < OUTAGE; index += 1) {
      assert.equal((await app.inject({ method: 'GET', url: `/products/${(index % 3) + 1}` })).statusCode, 503);
    }
  }

  it('log the first failure of a kind with its stack, then count the repeats into a summary, not a stack per 503', async () => {
    const lines: Array<Record<string, unknown>> = [];
    // An interval longer than the test: no timer fires, so the count does not depend on the machine's speed.
    const app = await gatewayLoggingTo(lines, 600_000);
    await postgres.stop();
    try {
      await outage(app);
      assert.equal(withStack(lines).length, 1, `one stack for ${OUTAGE} failures of one kind, got ${withStack(lines).length}`);
      assert.equal(failuresIn(lines).length, 1, 'repeats wait for the summary');
    } finally {
      await app.close();
      await postgres.start();
    }
    // Closing writes the pending summary: every failure is accounted for, once.
    assert.equal(summarised(lines), OUTAGE - 1);
    assert.equal(failuresIn(lines).length, 2);
  });

  it('write one summary line per interval while an outage lasts, and account for every failure', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const app = await gatewayLoggingTo(lines, 100);
    await postgres.stop();
    try {
      await outage(app);
      await eventually('a summary line from the interval timer', async () => summarised(lines) > 0);
    } finally {
      await app.close();
      await postgres.start();
    }
    // A kind quiet for a whole interval shows its stack again, so a slow machine may log a few stacks;
    // each failure is still either a logged stack or counted in a summary.
    assert.equal(withStack(lines).length + summarised(lines), OUTAGE);
    assert.ok(failuresIn(lines).length < OUTAGE / 5, `a handful of lines, not one per request (${failuresIn(lines).length})`);
  });
});
