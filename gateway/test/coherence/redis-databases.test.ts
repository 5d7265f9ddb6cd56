import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { authorized, createFixtureDatabase, metricValue, startGateway } from '../support/gateway.js';

/** Every reset of one gateway, whatever its reason. */
async function resets(app: FastifyInstance): Promise<number> {
  const text = await app.services.metrics.registry.metrics();
  return text
    .split('\n')
    .filter((line) => line.startsWith('catalog_coherence_resets_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

// Redis keeps keys per numbered database but delivers a PUBLISH to the subscribers of every
// database. Two fleets on one server, each in its own database (staging and production, or two
// catalogs), must not hear each other's invalidations: to a gateway, another fleet's clock is an
// epoch it does not know, which would drop its cache and lease on every write over there.
describe('two fleets in two databases of one Redis server', () => {
  let redis: RedisServer;
  let here: FastifyInstance;
  let there: FastifyInstance;
  before(async () => {
    redis = await startRedis();
    const [hereDatabase, thereDatabase] = await Promise.all([createFixtureDatabase(), createFixtureDatabase()]);
    here = await startGateway(hereDatabase, { REDIS_URL: `${redis.url}/3` });
    there = await startGateway(thereDatabase, { REDIS_URL: `${redis.url}/4` });
  });
  after(async () => {
    await Promise.allSettled([here?.close(), there?.close()]);
    await redis?.stop();
  });

  it('writes in one database reset nothing in the other, whose memory keeps answering', async () => {
    assert.equal((await here.inject({ method: 'GET', url: '/products/2' })).statusCode, 200);
    const resetsBefore = await resets(here);
    const hitsBefore = metricValue(
      await here.services.metrics.registry.metrics(),
      'catalog_cache_lookups_total{backend="memory",result="hit"}',
    );
    for (let write = 0; write < 20; write += 1) {
      const response = await there.inject({
        method: 'PUT',
        url: '/products/1',
        headers: authorized,
        payload: { name: `Renamed ${write}` },
      });
      assert.equal(response.statusCode, 200);
      assert.equal((await here.inject({ method: 'GET', url: '/products/2' })).statusCode, 200);
    }
    const hitsAfter = metricValue(
      await here.services.metrics.registry.metrics(),
      'catalog_cache_lookups_total{backend="memory",result="hit"}',
    );
    assert.equal((await resets(here)) - resetsBefore, 0, "the other database's writes reset this fleet");
    assert.equal(hitsAfter - hitsBefore, 20, "this fleet's memory stopped answering during the other's writes");
  });
});
