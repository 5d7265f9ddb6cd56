import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { countStatements, createFixtureDatabase, startGateway, startListeningGateway } from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

// `inject` reaches Fastify directly: its routes answer from the cache, written as the edge writes it.
describe('cached GETs answered by their route through Fastify', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase());
  });
  after(() => app.close());

  it('serves a repeat GET with the same bytes and headers, no database work, and full metrics', async () => {
    const first = await app.inject({ method: 'GET', url: '/products/1/styles' });
    let second: Awaited<ReturnType<typeof app.inject>> | undefined;
    const statements = await countStatements(app, async () => {
      second = await app.inject({ method: 'GET', url: '/products/1/styles', headers: { 'x-request-id': 'hook-123' } });
    });
    assert.deepEqual(statements, []);
    assert.equal(second!.statusCode, 200);
    assert.equal(second!.body, first.body);
    assert.equal(second!.headers['content-type'], first.headers['content-type']);
    assert.equal(second!.headers['content-length'], first.headers['content-length']);
    assert.equal(second!.headers['x-request-id'], 'hook-123');

    const metrics = await scrapeMetrics(app);
    assert.match(metrics, /catalog_http_requests_total\{method="GET",route="\/products\/:product_id\/styles",status_code="200"\} 2/);
    assert.match(
      metrics,
      /catalog_http_request_duration_seconds_count\{method="GET",route="\/products\/:product_id\/styles",status_code="200"\} 2/,
    );
    assert.match(metrics, /catalog_cache_lookups_total\{backend="memory",result="hit"\} 1\n/);
  });

  it('gives answers from the cache a request id when the client sent none', async () => {
    await app.inject({ method: 'GET', url: '/products/2' });
    const [one, two] = await Promise.all([1, 2].map(() => app.inject({ method: 'GET', url: '/products/2' })));
    assert.match(String(one!.headers['x-request-id']), /^[\w-]+-[0-9a-z]+$/);
    assert.notEqual(one!.headers['x-request-id'], two!.headers['x-request-id']);
  });
});

// The hot lane sits in the HTTP server in front of Fastify, so it is tested over real sockets
// (app.inject goes to Fastify, where the routes answer from the cache instead).
describe('hot lane: cached GETs answered in front of Fastify', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase()));
  });
  after(() => app.close());

  it('serves a repeat GET with the same bytes and headers, no database work, and full metrics', async () => {
    const first = await fetch(`${base}/products/1/styles`);
    const firstBody = await first.text();
    let second: Response | undefined;
    let secondBody = '';
    const statements = await countStatements(app, async () => {
      second = await fetch(`${base}/products/1/styles`, { headers: { 'x-request-id': 'hot-123' } });
      secondBody = await second.text();
    });
    assert.deepEqual(statements, []);
    assert.equal(secondBody, firstBody);
    assert.equal(second!.status, 200);
    assert.equal(second!.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(second!.headers.get('x-request-id'), 'hot-123');

    const metrics = await scrapeMetrics(app);
    assert.match(metrics, /catalog_http_requests_total\{method="GET",route="\/products\/:product_id\/styles",status_code="200"\} 2/);
    // Hot hits are folded into the metrics when they are collected: every scrape sees them all.
    assert.match(
      metrics,
      /catalog_http_request_duration_seconds_count\{method="GET",route="\/products\/:product_id\/styles",status_code="200"\} 2/,
    );
    assert.match(metrics, /catalog_cache_lookups_total\{backend="memory",result="hit"\} [1-9]/);
  });

  it('leaves writes, errors and uncached URLs to Fastify', async () => {
    const missing = await fetch(`${base}/products/4`);
    assert.equal(missing.status, 404);
    assert.equal((await fetch(`${base}/products/4`)).status, 404, 'errors are not cached');
    const unauthorised = await fetch(`${base}/products/1`, { method: 'DELETE' });
    assert.equal(unauthorised.status, 401);
  });
});
