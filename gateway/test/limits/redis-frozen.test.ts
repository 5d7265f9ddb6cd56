import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { createFixtureDatabase, eventually, metricValue, startListeningGateway } from '../support/gateway.js';
import { awayFromWindowEdge, limitsEnv, newClient, requestsInRedis, send, sendGraphQL, type Answer } from './support.js';
import { scrapeMetrics } from '../../../scripts/test/metrics.js';

const COMMAND_TIMEOUT_MS = 200;
/** How long after the command timeout every request must have been answered (a busy machine's margin, not a latency target). */
const MARGIN_MS = 5_000;
const LIMIT = 5;

describe('rate limits while Redis is frozen', () => {
  const a = newClient('frozen-a');
  const b = newClient('frozen-b');
  let redis: RedisServer;
  let app: FastifyInstance;
  let base: string;
  let inspector: Redis;
  before(async () => {
    redis = await startRedis();
    ({ app, base } = await startListeningGateway(await createFixtureDatabase(), {
      REDIS_URL: redis.url,
      REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
      ...limitsEnv({
        requests: LIMIT,
        clients: { [a.name]: { keySha256: a.keySha256 }, [b.name]: { keySha256: b.keySha256 } },
        classes: { ip: { requests: 1_000 } },
      }),
    }));
    inspector = new Redis(redis.url);
    await awayFromWindowEdge();
  });
  after(async () => {
    redis.thaw();
    inspector.disconnect();
    await app.close();
    await redis.stop();
  });

  it('counts each client locally, answers every request within the command timeout, and hands the counts to Redis when it is back', async () => {
    assert.equal((await send(base, '/products/1')).status, 200); // cached in memory
    const keyA = { 'x-api-key': a.key };
    assert.equal((await send(base, '/products/1', { headers: keyA })).status, 200);
    assert.equal((await send(base, '/products/1', { headers: keyA })).status, 200);
    await eventually("A's two requests in Redis", async () => (await requestsInRedis(inspector, a.name)) === 2);

    redis.freeze();
    try {
      // A's six requests and B's three at once: cached answers (the hot lane), misses that ask the
      // frozen Redis first, and GraphQL; each answered or still pending at the end.
      const requests: Array<{ client: 'a' | 'b'; answer: Promise<Answer> }> = [
        ...[1, 1, 2, 3, 1, 4].map((id) => ({ client: 'a' as const, answer: send(base, `/products/${id}`, { headers: keyA }) })),
        { client: 'b', answer: send(base, '/products/1', { headers: { 'x-api-key': b.key } }) },
        { client: 'b', answer: send(base, '/products/5/styles', { headers: { 'x-api-key': b.key } }) },
        { client: 'b', answer: sendGraphQL(base, '{ product(id: 2) { id name } }', { 'x-api-key': b.key }) },
      ];
      const answered = new Map<number, Answer>();
      requests.forEach(({ answer }, index) => void answer.then((result) => answered.set(index, result)));
      await sleep(COMMAND_TIMEOUT_MS + MARGIN_MS);
      const pending = requests.map((_, index) => index).filter((index) => !answered.has(index));
      assert.deepEqual(pending, [], 'requests still pending while Redis is frozen');

      const statusesOf = (client: 'a' | 'b') =>
        requests.flatMap(({ client: who }, index) => (who === client ? [answered.get(index)!.status] : [])).sort();
      // A had 2 of its 5 counted before the freeze: this replica admits 3 more, counting alone.
      assert.deepEqual(statusesOf('a'), [200, 200, 200, 429, 429, 429]);
      assert.deepEqual(statusesOf('b'), [200, 200, 200]);

      // Syncs fail (the command timeout), the circuit opens, and then none reaches Redis at all.
      await eventually('syncs skipped with the circuit open', async () => {
        await send(base, '/products/1', { headers: keyA });
        const metrics = await scrapeMetrics(app);
        return (
          metricValue(metrics, 'catalog_rate_limit_syncs_total{result="failed"}') >= 1 &&
          metricValue(metrics, 'catalog_rate_limit_syncs_total{result="skipped"}') >= 1
        );
      });
    } finally {
      redis.thaw();
    }
    // What this replica counted alone reaches Redis once it is back: A's five, no more (refusals are not counted).
    await eventually("A's five requests in Redis after the thaw", async () => (await requestsInRedis(inspector, a.name)) === LIMIT, 15_000);
    assert.equal((await send(base, '/products/1', { headers: keyA })).status, 429);
  });
});
