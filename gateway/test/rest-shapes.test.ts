import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createFixtureDatabase, startGateway } from './support/gateway.js';

// Whole bodies, byte for byte: the fixture files are the legacy Atelier shapes, key order included.
const ROUTES = [
  ['/products', 'products-page-1.json'],
  ['/products?page=2&count=2', 'products-page-2-count-2.json'],
  ['/products?page=3&count=2', 'products-page-3-count-2.json'],
  ['/products/1', 'product-1.json'],
  ['/products/3', 'product-3.json'],
  ['/products/1/styles', 'product-1-styles.json'],
  ['/products/2/styles', 'product-2-styles.json'],
  ['/products/3/styles', 'product-3-styles.json'],
  ['/products/1/related', 'product-1-related.json'],
  ['/products/3/related', 'product-3-related.json'],
] as const;

async function fixture(name: string): Promise<string> {
  // Stored pretty-printed for review; the wire form is compact with the same key order.
  return JSON.stringify(JSON.parse(await readFile(new URL(`fixtures/${name}`, import.meta.url), 'utf8')));
}

describe('REST routes return the legacy Atelier shapes', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase());
  });
  after(() => app.close());

  for (const [url, name] of ROUTES) {
    it(`GET ${url} matches ${name}`, async () => {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, response.body);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.body, await fixture(name));
    });
  }

  it('serves the same bytes from the cache on a repeat request', async () => {
    const first = await app.inject({ method: 'GET', url: '/products/1/styles' });
    const second = await app.inject({ method: 'GET', url: '/products/1/styles' });
    assert.equal(second.body, first.body);
  });

  it('answers an unknown product with 404 naming it, on every product route', async () => {
    for (const url of ['/products/4', '/products/4/styles', '/products/4/related', '/products/999999999999999']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      const id = url.split('/')[2];
      assert.deepEqual(response.json(), { error: `product ${id} not found` });
    }
  });

  it('serves the OpenAPI document and Swagger UI', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    assert.equal(document.openapi.startsWith('3.'), true);
    assert.deepEqual(Object.keys(document.paths).sort(), [
      '/healthz',
      '/products',
      '/products/{product_id}',
      '/products/{product_id}/related',
      '/products/{product_id}/styles',
      '/readyz',
    ]);
    assert.ok(document.paths['/products/{product_id}'].put.requestBody, 'PUT documents its body');
    const ui = await app.inject({ method: 'GET', url: '/docs' });
    assert.ok([200, 302].includes(ui.statusCode));
  });

  it('answers probes: /healthz alive, /readyz ready', async () => {
    assert.deepEqual((await app.inject({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    assert.deepEqual((await app.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ready' });
  });

  it('honours and echoes x-request-id, and makes one when absent', async () => {
    const given = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-abc-123' } });
    assert.equal(given.headers['x-request-id'], 'trace-abc-123');
    const made = await app.inject({ method: 'GET', url: '/healthz' });
    const madeNext = await app.inject({ method: 'GET', url: '/healthz' });
    // A per-process random prefix and a counter.
    assert.match(String(made.headers['x-request-id']), /^[\w-]{12}-[0-9a-z]+$/);
    assert.notEqual(made.headers['x-request-id'], madeNext.headers['x-request-id']);
  });
});
