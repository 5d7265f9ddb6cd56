import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { authorized, createFixtureDatabase, startGateway } from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const BAD_IDS = [
  'abc',
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '%20',
  '9223372036854775808',
  '99999999999999999999999',
  "1'%20OR%201=1",
  // Longer than the router's default parameter limit (100 characters), which answered its own 414.
  '9'.repeat(200),
  encodeURIComponent('T̺̺̕o͞ ̷i̲̬͇̪͙n̝̗͕v̟̜̘̦͟o̶̙̰̠kè͚̮̺̪̹̱̤ ̖t̝͕̳̣̻̪͞h̼͓̲̦̳̘̲e͇̣̰̦̬͎ ̢̼̻̱̘h͚͎͙̜̣̲ͅi̦̲̣̰̤v̻͍e̺̭̳̪̰-m̢iͅn̖̺̞̲̯̰d'),
];
const json = { 'content-type': 'application/json' };

describe('bad input gets a 4xx JSON error naming the problem, never a 500', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase(), { BODY_LIMIT_BYTES: '2048' });
  });
  after(() => app.close());

  async function expectClientError(request: InjectOptions, status: number, message: RegExp) {
    const response = await app.inject(request);
    const label = `${request.method} ${request.url}`;
    assert.equal(response.statusCode, status, `${label}: ${response.body}`);
    assert.match(String(response.headers['content-type']), /^application\/json/, label);
    const body = response.json();
    const text = body.error ?? body.errors?.[0]?.message;
    assert.match(String(text), message, label);
  }

  it('rejects malformed product ids on every id route', async () => {
    for (const id of BAD_IDS) {
      for (const suffix of ['', '/styles', '/related']) {
        await expectClientError({ method: 'GET', url: `/products/${id}${suffix}` }, 400, /product_id/);
      }
      await expectClientError(
        { method: 'PUT', url: `/products/${id}`, headers: { ...authorized, ...json }, payload: '{"name":"x"}' },
        400,
        /product_id/,
      );
      await expectClientError({ method: 'DELETE', url: `/products/${id}`, headers: authorized }, 400, /product_id/);
    }
  });

  it('rejects ids beyond the documented pattern: 16 digits could exceed an exact JSON number', async () => {
    await expectClientError(
      { method: 'GET', url: '/products/9999999999999999' },
      400,
      /product_id must match pattern "\^\[1-9\]\[0-9\]\{0,14\}\$"/,
    );
    const query = JSON.stringify({ query: '{ product(id: "9999999999999999") { id } }' });
    await expectClientError(
      { method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: query },
      400,
      /id must be a positive integer of at most 15 digits/,
    );
  });

  it('rejects malformed, mistyped and oversized write bodies', async () => {
    const headers = { ...authorized, ...json };
    const cases: [string, number, RegExp][] = [
      ['{"name": "x",', 400, /JSON/i],
      ['not json', 400, /JSON/i],
      ['{}', 400, /required property 'name'/],
      ['{"name": ""}', 400, /name must NOT have fewer than 1 characters/],
      ['{"name": 42}', 400, /name must be string/],
      ['{"name": "x", "colour": "red"}', 400, /unknown field "colour"/],
      ['{"name": "x", "default_price": "cheap"}', 400, /default_price/],
      ['{"name": "x", "default_price": -1}', 400, /default_price/],
      ['[1, 2]', 400, /must be object/],
      [JSON.stringify({ name: 'x'.repeat(4096) }), 413, /too large/i],
    ];
    for (const [payload, status, message] of cases) {
      await expectClientError({ method: 'POST', url: '/products', headers, payload }, status, message);
    }
    await expectClientError({ method: 'PUT', url: '/products/1', headers, payload: '{}' }, 400, /must NOT have fewer than 1 properties/);
    await expectClientError({ method: 'PUT', url: '/products/1', headers, payload: '{"id": 7}' }, 400, /unknown field "id"/);
    await expectClientError(
      { method: 'POST', url: '/products', headers: { ...authorized, 'content-type': 'text/plain' }, payload: 'name=x' },
      400,
      /body must be object/,
    );
  });

  it('refuses writes without the right bearer token with 401 before reading the body', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'Basic dGVzdA==' }, { authorization: 'Bearer ' }]) {
      await expectClientError(
        { method: 'POST', url: '/products', headers: { ...headers, ...json }, payload: '{"name":"x"}' },
        401,
        /bearer token/,
      );
      await expectClientError(
        { method: 'PUT', url: '/products/1', headers: { ...headers, ...json }, payload: 'not json' },
        401,
        /bearer token/,
      );
      await expectClientError({ method: 'DELETE', url: '/products/1', headers }, 401, /bearer token/);
    }
  });

  it('answers writes to unknown products with 404', async () => {
    await expectClientError(
      { method: 'PUT', url: '/products/4', headers: { ...authorized, ...json }, payload: '{"name":"x"}' },
      404,
      /product 4 not found/,
    );
    await expectClientError({ method: 'DELETE', url: '/products/4', headers: authorized }, 404, /product 4 not found/);
  });

  it('rejects malformed GraphQL requests', async () => {
    const post = (payload: string) => ({ method: 'POST' as const, url: '/graphql', headers: json, payload });
    await expectClientError(post('{"query": '), 400, /JSON/i);
    await expectClientError(post('{}'), 400, /POST body missing/);
    await expectClientError(post('{"query": 42}'), 400, /queries must be strings/);
    await expectClientError(post('{"query": "{ product(id: $id) { id } }"}'), 400, /\$id/);
    await expectClientError(post('{"query": "query Q($id: ID!) { product(id: $id) { id } }", "variables": {}}'), 400, /\$id/);
    await expectClientError(post('{"query": "subscription { x }"}'), 400, /subscription/i);
  });

  it('answers unknown routes with 404 JSON', async () => {
    await expectClientError({ method: 'GET', url: '/nope' }, 404, /no route GET \/nope/);
    await expectClientError({ method: 'PATCH', url: '/nope' }, 404, /no route PATCH/);
    // A known path with another method is a 405 naming the allowed ones (http-contract.test.ts).
    await expectClientError(
      { method: 'PATCH', url: '/products/1' },
      405,
      /PATCH is not allowed on \/products\/1: use DELETE, GET, HEAD, PUT/,
    );
  });

  it('counted none of the above as a server error', async () => {
    const metrics = await scrapeMetrics(app);
    assert.doesNotMatch(metrics, /catalog_http_requests_total\{[^}]*status_code="5\d\d"\}/);
    assert.match(metrics, /catalog_http_requests_total\{method="GET",route="unmatched",status_code="404"\} [1-9]/);
  });
});
