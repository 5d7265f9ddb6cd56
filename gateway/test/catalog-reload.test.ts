import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pino from 'pino';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import { restCacheKey } from '../src/cache/keys.js';
import { REDIS_CLOCK_KEY, redisResponseKey } from '../src/redis/keys.js';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { eventually, graphql, startGateway, testRedisUrl, withClient } from './support/gateway.js';

// A loader run replaces the whole catalog around the gateway; the gateway hears of it from
// Postgres (NOTIFY at the swap's commit), drops its in-process answers and starts a new epoch in
// Redis, which voids every answer Redis holds from the old catalog.
describe('catalog reload by the loader', () => {
  let databaseUrl: string;
  let dataDir: string;
  let app: FastifyInstance;
  let redis: Redis;
  const redisUrl = testRedisUrl(5);

  const load = async (seed: number) => {
    const dir = join(dataDir, `seed-${seed}`);
    await generateCatalog({ outDir: dir, products: 30, seed });
    await loadCatalog({ databaseUrl, dataDir: dir, logger: pino({ level: 'silent' }) });
  };
  const nameInDatabase = (id: number) =>
    withClient(
      databaseUrl,
      async (client) => (await client.query('SELECT name FROM catalog.products WHERE id = $1', [id])).rows[0].name as string,
    );

  before(async () => {
    databaseUrl = await createTestDatabase('reload');
    dataDir = await mkdtemp(join(tmpdir(), 'catalog-reload-'));
    await load(1);
    redis = new Redis(redisUrl);
    await redis.flushdb();
    app = await startGateway(databaseUrl, { REDIS_URL: redisUrl, CACHE_TTL_SECONDS: '3600' });
  });
  after(async () => {
    await app.close();
    redis.disconnect();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves the new catalog at once after a reload, not what it cached from the old one', async () => {
    const before = await app.inject({ method: 'GET', url: '/products/1' });
    const oldName = before.json().name as string;
    assert.equal(oldName, await nameInDatabase(1));
    await app.services.cache.settled();
    assert.equal(await redis.exists(redisResponseKey(restCacheKey('/products/1'))), 1, 'the answer is in Redis');
    const page = await graphql(app, '{ product(id: 1) { name } }');
    assert.equal(page.json().data.product.name, oldName);

    await load(2);
    const newName = await nameInDatabase(1);
    assert.notEqual(newName, oldName, 'the two generated catalogs differ');
    await eventually(
      'the reload reaches the gateway',
      async () => (await app.inject({ method: 'GET', url: '/products/1' })).json().name === newName,
    );
    assert.equal((await graphql(app, '{ product(id: 1) { name } }')).json().data.product.name, newName);
    // The old answers are void in Redis: a new epoch, and what is stored again is of the new catalog.
    await eventually('the swap reaches Redis', async () => (await redis.hget(REDIS_CLOCK_KEY, 'swap')) !== null);
    await app.services.cache.settled();
    const stored = await redis.get(redisResponseKey(restCacheKey('/products/1')));
    const epoch = await redis.hget(REDIS_CLOCK_KEY, 'epoch');
    assert.ok(stored === null || stored.startsWith(`${epoch}\n`), 'any answer left in Redis is of the new epoch');
    assert.ok(stored === null || !stored.includes(JSON.stringify(oldName)), 'no answer of the old catalog is served from Redis');
  });

  it('never lets a second replica take an answer of the old catalog from Redis', async () => {
    const other = await startGateway(databaseUrl, { REDIS_URL: redisUrl, CACHE_TTL_SECONDS: '3600' });
    try {
      const oldName = (await app.inject({ method: 'GET', url: '/products/2' })).json().name as string;
      await app.services.cache.settled();
      assert.equal((await other.inject({ method: 'GET', url: '/products/2' })).json().name, oldName, 'shared through Redis');
      await load(3);
      const newName = await nameInDatabase(2);
      await eventually('both replicas hear the reload', async () => {
        const names = await Promise.all(
          [app, other].map(async (replica) => (await replica.inject({ method: 'GET', url: '/products/2' })).json().name),
        );
        return names.every((name) => name === newName);
      });
    } finally {
      await other.close();
    }
  });
});
