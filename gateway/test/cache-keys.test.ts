import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import {
  countStatements,
  createFixtureDatabase,
  graphql,
  metricValue,
  postGraphQL,
  startGateway,
  startListeningGateway,
  testRedisUrl,
} from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

/** Junk REST requests: what one client sends in a few seconds (each is refused before any work). */
const JUNK = 10_000;
/** Junk GraphQL requests, each one executed up to the cache lookup. */
const GRAPHQL_JUNK = 1_000;
/**
 * Reads allowed for them besides the first: a lookup that finds neither tier (a Redis command
 * timing out on a loaded machine, the coherence lease briefly lapsing) reads Postgres again.
 */
const SPARE_READS = 4;

// A request's cache key names exactly what decides its response: anything else a client varies
// (parameter order, spelled-out defaults, formatting, undeclared variables, unknown parameters)
// makes no new key, no new Redis entry and no new Postgres read.
describe('canonical cache keys', () => {
  let app: FastifyInstance;
  let redis: Redis;
  const redisUrl = testRedisUrl(6);
  before(async () => {
    redis = new Redis(redisUrl);
    await redis.flushdb();
    app = await startGateway(await createFixtureDatabase(), { REDIS_URL: redisUrl, CACHE_MAX_ENTRIES_PER_TAG: '50' });
  });
  after(async () => {
    await app.close();
    redis.disconnect();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });
  const responsesInRedis = async () => {
    await app.services.cache.settled();
    return (await redis.keys('catalog:3:response:*')).length;
  };

  it('answers every spelling of a REST request from one entry: parameter order, defaults, number formats', async () => {
    const statements = await countStatements(app, async () => {
      for (const url of ['/products?page=1&count=5', '/products', '/products?count=5&page=1', '/products?count=5', '/products?page=01']) {
        assert.equal((await get(url)).statusCode, 200, url);
      }
    });
    assert.equal(statements.length, 1, `one read for every spelling: ${statements.length}`);
    assert.equal(await responsesInRedis(), 1);
  });

  it(`adds no Redis entry and no Postgres read for ${JUNK} REST requests with unknown parameters: each is a 400 naming it`, async () => {
    const keysBefore = await responsesInRedis();
    const statements = await countStatements(app, async () => {
      for (let index = 0; index < JUNK; index += 1) {
        const response = await get(`/products/2?x${index % 7}=${randomBytes(6).toString('hex')}`);
        if (response.statusCode !== 400) assert.fail(`junk request ${index}: ${response.statusCode} ${response.body}`);
        if (index === 0) assert.match(response.json().error, /x0/);
      }
    });
    assert.equal(statements.length, 0);
    assert.equal((await responsesInRedis()) - keysBefore, 0);
  });

  it('asks Redis nothing for junk at the edge: a URL that is no cache key is refused by its route', async () => {
    const { app: listening, base } = await startListeningGateway(await createFixtureDatabase(), { REDIS_URL: redisUrl });
    try {
      const redisLookups = async () => {
        const text = await scrapeMetrics(listening);
        return (
          metricValue(text, 'catalog_cache_lookups_total{backend="redis",result="hit"}') +
          metricValue(text, 'catalog_cache_lookups_total{backend="redis",result="miss"}')
        );
      };
      const before = await redisLookups();
      for (let index = 0; index < 200; index += 1) {
        const url = index % 2 === 0 ? `/products/2?x=${index}` : `/products?page=1&count=5&x=${index}`;
        const response = await fetch(`${base}${url}`);
        assert.equal(response.status, 400, url);
        await response.arrayBuffer();
      }
      assert.equal((await redisLookups()) - before, 0);
    } finally {
      await listening.close();
    }
  });

  it(`answers ${GRAPHQL_JUNK} GraphQL requests that differ only in formatting, other operations and undeclared variables from one entry`, async () => {
    const keysBefore = await responsesInRedis();
    const statements = await countStatements(app, async () => {
      for (let index = 0; index < GRAPHQL_JUNK; index += 1) {
        const junk = randomBytes(4).toString('hex');
        const spacing = ' '.repeat(index % 5);
        const query = `# ${junk}\nquery Card($id: ID!) {${spacing} product(id: $id) { id ${spacing}name } }\nquery Other { product(id: 9) { id } }`;
        const variables = { [`junk${junk}`]: junk, id: index % 2 === 0 ? '3' : 3 };
        const response = await postGraphQL(app, { query, variables, operationName: 'Card' });
        if (response.statusCode !== 200 || response.json().data?.product?.id !== '3') {
          assert.fail(`GraphQL request ${index}: ${response.statusCode} ${response.body}`);
        }
      }
    });
    assert.ok(statements.length <= 1 + SPARE_READS, `the first request's read, and a few spare at most: ${statements.length}`);
    assert.ok((await responsesInRedis()) - keysBefore <= 1, 'one Redis entry at most');
  });

  it('never answers a malformed request from the entry of the well-formed one it resembles', async () => {
    const query = '{ product(id: 4) { id } }';
    assert.equal((await postGraphQL(app, { query })).statusCode, 200);
    for (const malformed of [
      { query, operationName: {} },
      { query, operationName: 7 },
      { query, variables: '{}' },
      { query, variables: [1] },
    ]) {
      const response = await postGraphQL(app, malformed);
      assert.equal(response.statusCode, 400, JSON.stringify(malformed));
    }
  });

  it('keeps at most CACHE_MAX_ENTRIES_PER_TAG responses of one product in Redis, however many distinct queries name it', async () => {
    const keysBefore = await responsesInRedis();
    for (let index = 0; index < 200; index += 1) {
      // Distinct documents (an alias each): legitimately distinct responses, all built from product 5.
      const response = await graphql(app, `{ a${index}: product(id: 5) { id name } }`);
      assert.equal(response.statusCode, 200);
    }
    const added = (await responsesInRedis()) - keysBefore;
    assert.ok(added <= 50, `at most 50 of 200 stored (CACHE_MAX_ENTRIES_PER_TAG): ${added}`);
    assert.ok(added > 0, 'some are stored');
    const stores = (await scrapeMetrics(app))
      .split('\n')
      .find((line) => line.startsWith('catalog_cache_shared_stores_total{result="full"}'));
    assert.ok(stores && Number(stores.split(' ')[1]) >= 150, `the rest are refused as full: ${stores}`);
  });
});
