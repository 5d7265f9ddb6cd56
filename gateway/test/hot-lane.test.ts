import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { countStatements, createFixtureDatabase, startListeningGateway } from './support/gateway.js';

// The hot lane sits in the HTTP server in front of Fastify, so it is tested over real sockets
// (app.inject would go around it).
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

    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /catalog_http_requests_total\{method="GET",route="\/products\/:product_id\/styles",status_code="200"\} 2/);
    // Hot hits are folded into the metrics when they are collected: every scrape sees them all.
    assert.match(metrics, /catalog_http_request_duration_seconds_count\{method="GET",route="\/products\/:product_id\/styles",status_code="200"\} 2/);
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
