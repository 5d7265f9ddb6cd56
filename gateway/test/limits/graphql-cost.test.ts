import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { countStatements, createFixtureDatabase, metricValue, startListeningGateway, testRedisUrl } from '../support/gateway.js';
import { awayFromWindowEdge, fieldItems, limitsEnv, newClient, send, sendGraphQL } from './support.js';
import { scrapeMetrics } from '../../../scripts/test/metrics.js';

// Costs as the complexity limit computes them (README: 1 per field, a list × its count).
const TEN_PRODUCTS = '{ products(count: 10) { id name } }'; // 1 + 10 × 2 = 21
const ONE_PRODUCT = '{ product(id: 1) { id name } }'; // 1 + 2 = 3
const BUDGET = 50;

describe('GraphQL cost per client', () => {
  const client = newClient('cost');
  const careful = newClient('cost-refused-only');
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase(), {
      REDIS_URL: testRedisUrl(9),
      // The budget may not be below the cost one operation may have.
      GRAPHQL_MAX_COMPLEXITY: String(BUDGET),
      ...limitsEnv({
        requests: 1_000,
        clients: {
          [client.name]: { keySha256: client.keySha256, graphqlCost: BUDGET },
          [careful.name]: { keySha256: careful.keySha256, graphqlCost: BUDGET },
        },
      }),
    }));
    await awayFromWindowEdge();
  });
  after(() => app.close());

  const key = { 'x-api-key': client.key };

  it('refuses an operation over the cost budget while the request count is fine, charging cached answers too', async () => {
    const first = await sendGraphQL(base, TEN_PRODUCTS, key);
    assert.equal(first.status, 200, first.body);
    assert.ok(JSON.parse(first.body).data.products.length > 0);

    // The same query again is answered from the response cache, and still costs its 21.
    let second: Awaited<ReturnType<typeof sendGraphQL>> | undefined;
    assert.deepEqual(await countStatements(app, async () => (second = await sendGraphQL(base, TEN_PRODUCTS, key))), []);
    assert.equal(second!.status, 200);
    // Past half of the budget, answers say what is left.
    assert.deepEqual(fieldItems(second!.headers.ratelimit)['graphql-cost'], {
      r: String(BUDGET - 42),
      t: fieldItems(second!.headers.ratelimit)['graphql-cost']!.t,
    });

    const third = await sendGraphQL(base, TEN_PRODUCTS, key);
    assert.equal(third.status, 429, third.body);
    const error = JSON.parse(third.body).errors[0];
    assert.equal(error.extensions.code, 'RATE_LIMITED');
    assert.match(error.message, /^GraphQL cost limit exceeded: this operation costs 21, and 8 of this client's 50 per 3600 s remain/);
    const limits = fieldItems(third.headers.ratelimit);
    assert.equal(limits['graphql-cost']!.r, '8');
    assert.equal(limits.requests!.r, String(1_000 - 3), 'the refused request still counts as a request');
    assert.equal(third.headers['retry-after'], limits['graphql-cost']!.t);
    assert.deepEqual(fieldItems(third.headers['ratelimit-policy'])['graphql-cost'], {
      q: String(BUDGET),
      w: '3600',
      'catalog-qu': '"graphql-cost"',
    });

    // Its request count is fine: REST is served, and an operation that fits what is left runs.
    assert.equal((await send(base, '/products/1', { headers: key })).status, 200);
    const cheap = await sendGraphQL(base, ONE_PRODUCT, key);
    assert.equal(cheap.status, 200, cheap.body);
    assert.equal(fieldItems(cheap.headers.ratelimit)['graphql-cost']!.r, '5');

    const metrics = await scrapeMetrics(app);
    assert.equal(
      metricValue(metrics, `catalog_rate_limited_requests_total{client_class="api-key",client="${client.name}",policy="graphql-cost"}`),
      1,
    );
  });

  it('charges nothing for an operation that does not run', async () => {
    const key = { 'x-api-key': careful.key };
    const overComplexity = await sendGraphQL(base, '{ products(count: 100) { id name } }', key);
    assert.equal(overComplexity.status, 400);
    assert.equal(JSON.parse(overComplexity.body).errors[0].extensions.code, 'QUERY_TOO_COMPLEX');
    assert.equal((await sendGraphQL(base, '{ product(id: 1) { nope } }', key)).status, 400);
    // The whole budget is left: two operations of 21 run.
    assert.equal((await sendGraphQL(base, TEN_PRODUCTS, key)).status, 200);
    const second = await sendGraphQL(base, TEN_PRODUCTS, key);
    assert.equal(second.status, 200);
    assert.equal(fieldItems(second.headers.ratelimit)['graphql-cost']!.r, String(BUDGET - 42));
  });
});
