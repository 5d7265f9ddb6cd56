import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  authorized,
  createFixtureDatabase,
  eventually,
  graphql,
  startGateway,
  startListeningGateway,
  testRedisUrl,
} from '../support/gateway.js';
import { startCaptureServer, type CaptureServer } from './capture-server.js';

const SHARED_READ_CACHE_CONTROL = 'public, max-age=60, s-maxage=3600, stale-while-revalidate=300';

/** The headers a shared cache keeps a catalog read by; the ones that differ per answer (request id, date) left out. */
function cachingHeaders(headers: IncomingHttpHeaders | Record<string, unknown>) {
  const { etag, vary } = headers;
  return {
    etag,
    vary,
    'cache-control': headers['cache-control'],
    'surrogate-key': headers['surrogate-key'],
    'cache-tag': headers['cache-tag'],
  };
}

const fetchHeaders = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, init);
  const body = await response.text();
  assert.equal(response.status, 200, `${url}: ${body}`);
  return Object.fromEntries(response.headers) as Record<string, string>;
};

describe('surrogate keys and shared-cache Cache-Control on catalog reads, purged on writes', () => {
  let databaseUrl: string;
  let varnish: CaptureServer;
  let writer: { app: FastifyInstance; base: string };
  let other: { app: FastifyInstance; base: string };
  before(async () => {
    [databaseUrl, varnish] = await Promise.all([createFixtureDatabase(), startCaptureServer()]);
    const env = { REDIS_URL: testRedisUrl(14), EDGE_PURGE_VARNISH_URLS: varnish.base };
    writer = await startListeningGateway(databaseUrl, env);
    other = await startListeningGateway(databaseUrl, env);
  });
  after(async () => {
    await Promise.allSettled([writer?.app.close(), other?.app.close()]);
    await varnish.close();
  });

  it("tags a REST read with the response cache's tags, the same on the miss, the in-process hit and another replica's Redis hit", async () => {
    const miss = await fetchHeaders(`${writer.base}/products/2/related`);
    // The product and those it relates to, as the response cache tags it.
    assert.match(String(miss['surrogate-key']), /^catalog( product:\d+)+$/);
    assert.ok(miss['surrogate-key']!.split(' ').includes('product:2'), miss['surrogate-key']);
    // Cloudflare's copy is for Cloudflare, which this gateway does not purge.
    assert.equal(miss['cache-tag'], undefined);
    assert.equal(miss['cache-control'], SHARED_READ_CACHE_CONTROL);
    const hit = await fetchHeaders(`${writer.base}/products/2/related`);
    const sharedHit = await fetchHeaders(`${other.base}/products/2/related`);
    assert.deepEqual(cachingHeaders(hit), cachingHeaders(miss), 'in-process hit (hot lane)');
    assert.deepEqual(cachingHeaders(sharedHit), cachingHeaders(miss), "another replica's hit from Redis");
    const notModified = await fetch(`${writer.base}/products/2/related`, { headers: { 'if-none-match': miss.etag! } });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get('surrogate-key'), miss['surrogate-key']);
  });

  it('tags list pages with the list tag and GraphQL queries (GET and POST) with their products', async () => {
    const list = await fetchHeaders(`${writer.base}/products?page=1&count=2`);
    assert.equal(list['surrogate-key'], 'catalog products:list product:1 product:2');
    const query = '{ product(id: "1") { id name related { id } } }';
    const overGet = await fetchHeaders(`${writer.base}/graphql?${new URLSearchParams({ query })}`);
    assert.match(overGet['surrogate-key']!, /^catalog( product:\d+)+$/);
    assert.ok(overGet['surrogate-key']!.split(' ').includes('product:1'), overGet['surrogate-key']);
    const overPost = await graphql(writer.app, query);
    assert.equal(overPost.headers['surrogate-key'], overGet['surrogate-key']);
    assert.equal(overPost.headers['cache-control'], SHARED_READ_CACHE_CONTROL);
  });

  it('sends none on writes, errors and GraphQL answers with errors', async () => {
    const write = await writer.app.inject({ method: 'PUT', url: '/products/5', headers: authorized, payload: { slogan: 'tagless' } });
    const missing = await writer.app.inject({ method: 'GET', url: '/products/999999' });
    const invalid = await writer.app.inject({ method: 'GET', url: '/products/abc' });
    const failed = await graphql(writer.app, '{ product(id: "1") { nope } }');
    for (const [what, response] of Object.entries({ write, missing, invalid, failed })) {
      assert.equal(response.headers['surrogate-key'], undefined, what);
      assert.equal(response.headers['cache-tag'], undefined, what);
      assert.equal(response.headers['cache-control'], 'no-store', what);
    }
  });

  it("purges a write's tags once for the fleet: one PURGE from the writing replica, none from the other", async () => {
    const before = varnish.requests.length;
    const write = await writer.app.inject({ method: 'PUT', url: '/products/3', headers: authorized, payload: { slogan: 'purged once' } });
    assert.equal(write.statusCode, 200, write.body);
    await eventually('the PURGE arrived', async () => varnish.requests.length > before);
    // Both replicas heard the write (the other through Redis); give a second PURGE time to show up.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const purges = varnish.requests
      .slice(before)
      .filter((request) => String(request.headers['xkey-purge']).split(' ').includes('product:3'));
    assert.equal(purges.length, 1, JSON.stringify(varnish.requests.slice(before)));
    assert.equal(purges[0]!.method, 'PURGE');
  });
});

describe('surrogate keys: configurable names, and none on personalised answers', () => {
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createFixtureDatabase();
  });

  it('uses the configured header names, leaves out one set to none, and sends no s-maxage without a purge target', async () => {
    const app = await startGateway(databaseUrl, { EDGE_SURROGATE_KEY_HEADER: 'xkey', EDGE_CACHE_TAG_HEADER: 'none' });
    try {
      const response = await app.inject({ method: 'GET', url: '/products/1' });
      assert.equal(response.headers.xkey, 'catalog product:1');
      assert.equal(response.headers['cache-tag'], undefined);
      assert.equal(response.headers['surrogate-key'], undefined);
      assert.equal(response.headers['cache-control'], 'public, max-age=60, stale-while-revalidate=300');
    } finally {
      await app.close();
    }
  });

  it("sends Cloudflare's comma-separated copy when the gateway purges Cloudflare, or under the name configured", async () => {
    const cloudflare = { EDGE_PURGE_CLOUDFLARE_ZONE_ID: 'zone-1', EDGE_PURGE_CLOUDFLARE_API_TOKEN: 'cloudflare-token' };
    for (const [env, header] of [
      [cloudflare, 'cache-tag'],
      [{ ...cloudflare, EDGE_CACHE_TAG_HEADER: 'Edge-Cache-Tag' }, 'edge-cache-tag'],
      [{ EDGE_CACHE_TAG_HEADER: 'Edge-Cache-Tag' }, 'edge-cache-tag'],
      [{}, undefined],
    ] as const) {
      const app = await startGateway(databaseUrl, env);
      try {
        const response = await app.inject({ method: 'GET', url: '/products/2/related' });
        const tags = String(response.headers['surrogate-key']);
        assert.match(tags, /^catalog( product:\d+)+$/);
        const copies = Object.keys(response.headers).filter((name) => name.endsWith('cache-tag'));
        assert.deepEqual(copies, header ? [header] : [], JSON.stringify(env));
        if (header) assert.equal(response.headers[header], tags.replaceAll(' ', ','));
      } finally {
        await app.close();
      }
    }
  });

  it('answers a client its RateLimit fields privately, without surrogate keys, on the miss and on the hit', async () => {
    const { app, base } = await startListeningGateway(databaseUrl, { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS: '4' });
    try {
      const shared = await fetchHeaders(`${base}/products/3`);
      assert.equal(shared.ratelimit, undefined, 'fields only once half the quota is used');
      assert.equal(shared['surrogate-key'], 'catalog product:3');
      for (const path of ['/products/2', '/products/3']) {
        const personal = await fetchHeaders(`${base}${path}`);
        assert.ok(personal.ratelimit, `${path}: RateLimit fields`);
        assert.equal(personal['cache-control'], 'private, max-age=60, stale-while-revalidate=300', path);
        assert.equal(personal['surrogate-key'], undefined, path);
        assert.equal(personal['cache-tag'], undefined, path);
      }
    } finally {
      await app.close();
    }
  });
});
