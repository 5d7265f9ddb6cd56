import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { createFixtureDatabase, eventually, metricValue, startListeningGateway, testRedisUrl } from '../support/gateway.js';
import {
  awayFromWindowEdge,
  fieldItems,
  limitsEnv,
  newClient,
  requestsInRedis,
  send,
  sendGraphQL,
  WINDOW_SECONDS,
  type Answer,
} from './support.js';
import { scrapeMetrics } from '../../../scripts/test/metrics.js';

const LIMIT = 10;

/** Two replicas sharing one database and the suite's Redis; A and B are clients known by API key. */
describe('request limits shared by two replicas through Redis', () => {
  const a = newClient('client-a');
  const b = newClient('client-b');
  /** Far from its limit: counts its requests. */
  const counted = newClient('client-counted');
  const replicas: Array<{ app: FastifyInstance; base: string }> = [];
  let inspector: Redis;
  before(async () => {
    const databaseUrl = await createFixtureDatabase();
    const env = {
      REDIS_URL: testRedisUrl(9),
      ...limitsEnv({
        requests: LIMIT,
        clients: {
          [a.name]: { keySha256: a.keySha256 },
          [b.name]: { keySha256: b.keySha256 },
          [counted.name]: { keySha256: counted.keySha256, requests: 1_000 },
        },
        // The test warms the caches as a client known by its address, with room to spare.
        classes: { ip: { requests: 1_000 } },
      }),
    };
    replicas.push(await startListeningGateway(databaseUrl, env), await startListeningGateway(databaseUrl, env));
    inspector = new Redis(testRedisUrl(9));
    await awayFromWindowEdge();
  });
  after(async () => {
    inspector.disconnect();
    await Promise.all(replicas.map(({ app }) => app.close()));
  });

  it('refuses client A with 429 and the RateLimit headers on both replicas while client B is served', async () => {
    // Cached in each replica's memory: A's requests are answered by the hot lane, in front of Fastify.
    for (const { base } of replicas) assert.equal((await send(base, '/products/1')).status, 200);

    // A alternates between the replicas, each request's count synced before the next. Counted
    // apart, each replica would admit LIMIT of them; shared, they admit LIMIT together, plus at
    // most the one a replica admits before it hears of the other's last.
    const admitted: Answer[] = [];
    const refusals = new Map<number, Answer>();
    for (let attempt = 0; attempt < 4 * LIMIT && refusals.size < 2; attempt += 1) {
      const replica = attempt % 2;
      const answer = await send(replicas[replica]!.base, '/products/1', { headers: { 'x-api-key': a.key } });
      if (answer.status === 429) {
        refusals.set(replica, answer);
        continue;
      }
      assert.equal(answer.status, 200, answer.body);
      admitted.push(answer);
      await eventually(
        `Redis to hold A's ${admitted.length} requests`,
        async () => (await requestsInRedis(inspector, a.name)) === admitted.length,
      );
    }
    assert.equal(refusals.size, 2, `both replicas refused A (admitted ${admitted.length})`);
    assert.ok(
      admitted.length >= LIMIT && admitted.length <= LIMIT + 1,
      `the replicas admitted ${admitted.length} of A's requests together`,
    );

    // Answers carry the fields once half of a quota is used: none on the first, on the last.
    assert.equal(admitted[0]!.headers.ratelimit, undefined);
    assert.ok(Number(fieldItems(admitted.at(-1)!.headers.ratelimit).requests!.r) <= 1, String(admitted.at(-1)!.headers.ratelimit));

    for (const refusal of refusals.values()) {
      assert.equal(refusal.headers['content-type'], 'application/problem+json');
      const problem = JSON.parse(refusal.body);
      assert.match(problem.detail, /^rate limit exceeded: 10 requests per 3600 s for this client/);
      assert.deepEqual(
        { type: problem.type, status: problem.status, violated: problem['violated-policies'] },
        { type: 'https://iana.org/assignments/http-problem-types#quota-exceeded', status: 429, violated: ['requests'] },
      );
      const retryAfter = Number(refusal.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= WINDOW_SECONDS, `Retry-After ${retryAfter}`);
      const limits = fieldItems(refusal.headers.ratelimit);
      assert.deepEqual(limits.requests, { r: '0', t: String(retryAfter) });
      assert.equal(limits['graphql-cost']!.t, String(retryAfter));
      const policies = fieldItems(refusal.headers['ratelimit-policy']);
      assert.deepEqual(policies.requests, { q: String(LIMIT), w: String(WINDOW_SECONDS) });
      assert.equal(policies['graphql-cost']!['catalog-qu'], '"graphql-cost"');
      assert.equal(refusal.headers['cache-control'], 'no-store');
      assert.ok(refusal.headers['x-request-id']);
    }

    // GraphQL too: A is refused in GraphQL's error shape.
    const graphql = await sendGraphQL(replicas[1]!.base, '{ product(id: 1) { id name } }', { 'x-api-key': a.key });
    assert.equal(graphql.status, 429);
    assert.equal(JSON.parse(graphql.body).errors[0].extensions.code, 'RATE_LIMITED');
    assert.ok(fieldItems(graphql.headers.ratelimit).requests);

    // Requests that reach Fastify without the hot lane (inject) are checked in its hook.
    const injected = await replicas[0]!.app.inject({ method: 'GET', url: '/products/1', headers: { 'x-api-key': a.key } });
    assert.equal(injected.statusCode, 429);
    assert.equal(fieldItems(injected.headers.ratelimit).requests!.r, '0');

    // B has a limit of its own, on both replicas.
    for (const { base } of replicas) {
      const answer = await send(base, '/products/1', { headers: { 'x-api-key': b.key } });
      assert.equal(answer.status, 200, answer.body);
      assert.equal(JSON.parse(answer.body).id, 1);
    }

    for (const { app } of replicas) {
      const metrics = await scrapeMetrics(app);
      const series = `catalog_rate_limited_requests_total{client_class="api-key",client="${a.name}",policy="requests"}`;
      assert.ok(
        metricValue(metrics, series) >= 1,
        metrics
          .split('\n')
          .filter((line) => line.includes('rate_limit'))
          .join('\n'),
      );
      assert.ok(metricValue(metrics, 'catalog_rate_limit_syncs_total{result="ok"}') >= 1);
    }
  });

  it('counts each request once, whichever way it is answered: memory, Redis, a route after a Redis miss, a route', async () => {
    const headers = { 'x-api-key': counted.key };
    // A list page no earlier run asked for: the first replica misses in Redis, then the second finds it there.
    const fresh = `/products?page=${1_000 + randomInt(100_000)}&count=1`;
    const lookups = async (replica: number, result: 'hit' | 'miss') =>
      metricValue(await scrapeMetrics(replicas[replica]!.app), `catalog_cache_lookups_total{backend="redis",result="${result}"}`);
    const before = { miss: await lookups(0, 'miss'), hit: await lookups(1, 'hit') };
    let sent = 0;
    for (const replica of [0, 1]) {
      const { base } = replicas[replica]!;
      // The first: a Redis miss routed by Fastify (replica 0) or a Redis hit (replica 1); the second, from memory.
      for (let repeat = 0; repeat < 2; repeat += 1, sent += 1) assert.equal((await send(base, fresh, { headers })).status, 200);
      // GraphQL goes to its route without the cache's edge.
      for (let repeat = 0; repeat < 2; repeat += 1, sent += 1) {
        assert.equal((await sendGraphQL(base, '{ product(id: 1) { id } }', headers)).status, 200);
      }
    }
    assert.ok((await lookups(0, 'miss')) > before.miss, 'the first replica asked Redis and missed');
    assert.ok((await lookups(1, 'hit')) > before.hit, 'the second replica found the page in Redis');
    await eventually(`Redis to hold the ${sent} requests sent`, async () => (await requestsInRedis(inspector, counted.name)) === sent);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await requestsInRedis(inspector, counted.name), sent, 'no request counted twice');
  });
});
