import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import { authorized, createFixtureDatabase, eventually, startGateway } from './support/gateway.js';

/** Two replicas sharing one database and one (private, freezable) Redis, with a long TTL. */
describe('invalidations across replicas are never lost', () => {
  let redis: RedisServer;
  let writer: FastifyInstance;
  let reader: FastifyInstance;
  before(async () => {
    redis = await startRedis();
    const databaseUrl = await createFixtureDatabase();
    const env = { REDIS_URL: redis.url, CACHE_TTL_SECONDS: '3600', REDIS_COMMAND_TIMEOUT_MS: '100' };
    [writer, reader] = await Promise.all([startGateway(databaseUrl, env), startGateway(databaseUrl, env)]);
  });
  after(async () => {
    redis.thaw();
    await Promise.all([writer.close(), reader.close()]);
    await redis.stop();
  });

  const slogan = async (app: FastifyInstance, id: number) => (await app.inject({ method: 'GET', url: `/products/${id}` })).json().slogan;

  it('a response computed before an invalidation is never stored in Redis after it (7)', async () => {
    const inspector = new Redis(redis.url);
    try {
      // The reader computes /products/2/styles while the writer changes product 2 and evicts it:
      // the reader's store must be refused because product 2's tag moved since its read began.
      const cache = reader.services.cache;
      let release!: () => void;
      let readDone!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const read = new Promise<void>((resolve) => (readDone = resolve));
      const computing = cache.getOrCompute('/race/products/2', async () => {
        readDone(); // the read happened; the write and its invalidation land now
        await held;
        return { status: 200, body: '{"stale":true}', route: '/products/:product_id/styles', tags: ['product:2'], cacheable: true };
      });
      await read;
      const write = await writer.inject({ method: 'PUT', url: '/products/2', headers: authorized, payload: { slogan: 'newer' } });
      assert.equal(write.statusCode, 200);
      release();
      await computing;
      await reader.services.cache.settled();
      const stored = await inspector.keys('catalog:response:*');
      const bodies = await Promise.all(stored.map((key) => inspector.get(key)));
      assert.ok(!bodies.some((body) => body?.includes('"stale":true')), 'the stale response is not in Redis');
    } finally {
      inspector.disconnect();
    }
  });

  it('a write made while Redis is stalled reaches the other replica once Redis answers again (6)', async () => {
    const before = await slogan(reader, 1);
    assert.equal(await slogan(writer, 1), before);
    redis.freeze();
    try {
      const write = await writer.inject({
        method: 'PUT',
        url: '/products/1',
        headers: authorized,
        payload: { slogan: 'Written while Redis was stalled' },
      });
      assert.equal(write.statusCode, 200, write.body);
      assert.equal(await slogan(writer, 1), 'Written while Redis was stalled', 'the writer serves its own write at once');
    } finally {
      redis.thaw();
    }
    // Well inside the one-hour TTL: the invalidation was retried, or the reader saw it missed one.
    await eventually('the reader serves the write', async () => (await slogan(reader, 1)) === 'Written while Redis was stalled', 10_000);
  });
});
