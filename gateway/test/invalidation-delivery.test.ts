import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import { authorized, createFixtureDatabase, startGateway } from './support/gateway.js';

/** Two replicas sharing one database and one (private, freezable) Redis, with a long TTL. */
describe('invalidations across replicas are never lost', () => {
  let redis: RedisServer;
  let writer: FastifyInstance;
  let reader: FastifyInstance;
  before(async () => {
    redis = await startRedis();
    const databaseUrl = await createFixtureDatabase();
    const env = { REDIS_URL: redis.url, CACHE_TTL_SECONDS: '3600', REDIS_COMMAND_TIMEOUT_MS: '100', REDIS_WRITE_WAIT_MS: '500' };
    [writer, reader] = await Promise.all([startGateway(databaseUrl, env), startGateway(databaseUrl, env)]);
  });
  after(async () => {
    redis.thaw();
    await Promise.all([writer.close(), reader.close()]);
    await redis.stop();
  });

  const slogan = async (app: FastifyInstance, id: number) => (await app.inject({ method: 'GET', url: `/products/${id}` })).json().slogan;
  const writeSlogan = (id: number, text: string) =>
    writer.inject({ method: 'PUT', url: `/products/${id}`, headers: authorized, payload: { slogan: text } });

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
      assert.equal((await reader.inject({ method: 'GET', url: '/products/3/styles' })).statusCode, 200);
      await reader.services.cache.settled();
      const stored = await inspector.keys('catalog:3:response:*');
      assert.ok(stored.length > 0, 'responses are stored in Redis (what this test looks in)');
      const bodies = await Promise.all(stored.map((key) => inspector.get(key)));
      assert.ok(!bodies.some((body) => body?.includes('"stale":true')), 'the stale response is not in Redis');
    } finally {
      inspector.disconnect();
    }
  });

  it('a write Redis cannot announce is refused with nothing written; once Redis answers, a write is seen by the other replica at once (6)', async () => {
    const before = await slogan(reader, 1);
    assert.equal(await slogan(writer, 1), before);
    redis.freeze();
    try {
      const write = await writeSlogan(1, 'Written while Redis was stalled');
      assert.equal(write.statusCode, 503, write.body);
      assert.match(write.json().error, /nothing was written/);
      assert.ok(write.headers['retry-after'], 'the client is told when to retry');
    } finally {
      redis.thaw();
    }
    assert.equal(await slogan(writer, 1), before, 'nothing was written');
    const retried = await writeSlogan(1, 'Written once Redis was back');
    assert.equal(retried.statusCode, 200, retried.body);
    // Acknowledged means every replica's copies are gone: no waiting for the reader.
    assert.equal(await slogan(reader, 1), 'Written once Redis was back');
    assert.equal(await slogan(writer, 1), 'Written once Redis was back');
  });
});
