import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { scrapeMetrics } from '../../scripts/test/metrics.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createFixtureDatabase, startListeningGateway } from './support/gateway.js';

describe('metrics on their own listener (METRICS_PORT), not on the public port', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase()));
  });
  after(() => app?.close());

  it('answers /metrics on the public port like any unknown path: 404', async () => {
    const metrics = await fetch(`${base}/metrics`);
    const unknown = await fetch(`${base}/no-such-path`);
    assert.equal(metrics.status, 404);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await metrics.json(), { error: 'no route GET /metrics' });
    assert.deepEqual(await unknown.json(), { error: 'no route GET /no-such-path' });
  });

  it('serves the series on the metrics listener, on HOST when METRICS_HOST is not set', async () => {
    assert.match(app.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    assert.notEqual(new URL(app.metricsUrl).port, new URL(base).port);
    assert.equal((await fetch(`${base}/products/1`)).status, 200);
    const response = await fetch(app.metricsUrl);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const text = await response.text();
    assert.match(text, /catalog_http_requests_total\{method="GET",route="\/products\/:product_id",status_code="200"\} 1\n/);
    assert.match(text, /^nodejs_heap_size_used_bytes \d+/m);
    // Scrapes are not requests of the API: they are not counted as such.
    assert.doesNotMatch(await scrapeMetrics(app), /route="\/metrics"/);
  });

  it('answers any other path on the metrics listener 404, and methods other than GET and HEAD 405', async () => {
    const listener = new URL(app.metricsUrl).origin;
    assert.equal((await fetch(`${listener}/products/1`)).status, 404);
    assert.equal((await fetch(`${listener}/`)).status, 404);
    const post = await fetch(app.metricsUrl, { method: 'POST', body: '' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    const head = await fetch(app.metricsUrl, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  it('stops listening when the gateway closes', async () => {
    const closing = await startListeningGateway(await createFixtureDatabase());
    const url = closing.app.metricsUrl;
    await scrapeMetrics(url);
    await closing.app.close();
    await assert.rejects(fetch(url), /fetch failed/);
  });
});

describe('METRICS_PORT and METRICS_HOST settings', () => {
  it('default to port 9464 on HOST', () => {
    const config = loadConfig({});
    assert.equal(config.METRICS_PORT, 9464);
    assert.equal(config.METRICS_HOST, undefined);
  });

  it('refuse the public port on the same address, naming both', () => {
    assert.throws(
      () => loadConfig({ PORT: '8080', METRICS_PORT: '8080' }),
      (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /METRICS_PORT: 8080 is also PORT on 127\.0\.0\.1/);
        return true;
      },
    );
    assert.equal(loadConfig({ PORT: '8080', METRICS_PORT: '8080', METRICS_HOST: '127.0.0.2' }).METRICS_PORT, 8080);
    assert.equal(loadConfig({ PORT: '0', METRICS_PORT: '0' }).METRICS_PORT, 0);
  });
});
