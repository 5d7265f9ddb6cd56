import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { restCacheKey } from '../src/cache/keys.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createFixtureDatabase, startGateway, startListeningGateway } from './support/gateway.js';

const SHOP = 'http://shop.example';
const OTHER = 'http://evil.example';
const PRODUCT_QUERY = JSON.stringify({ query: '{ product(id: "1") { name } }' });

/** The CORS-related headers of a response, for whole comparisons between answering paths. */
function corsHeadersOf(headers: Headers | Record<string, unknown>): Record<string, string | undefined> {
  const get = (name: string) => (headers instanceof Headers ? (headers.get(name) ?? undefined) : (headers[name] as string | undefined));
  return Object.fromEntries(
    ['access-control-allow-origin', 'access-control-allow-credentials', 'access-control-expose-headers', 'vary'].map((name) => [
      name,
      get(name),
    ]),
  );
}

const ALLOWED_ANSWER = {
  'access-control-allow-origin': SHOP,
  'access-control-allow-credentials': undefined,
  'access-control-expose-headers': 'x-request-id, etag',
  vary: 'Origin',
};
const REFUSED_ANSWER = {
  'access-control-allow-origin': undefined,
  'access-control-allow-credentials': undefined,
  'access-control-expose-headers': undefined,
  vary: 'Origin',
};
/** Catalog reads also vary by Accept-Encoding (HTTP caching and compression). */
const asRead = <Answer extends { vary: string }>(answer: Answer) => ({ ...answer, vary: 'Origin, accept-encoding' });
/** GraphQL answers also vary by Accept (their media type follows it). */
const asGraphQL = <Answer extends { vary: string }>(answer: Answer) => ({ ...answer, vary: `${answer.vary}, accept` });

describe('CORS with allowed origins', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase(), { CORS_ORIGINS: `${SHOP}, http://127.0.0.1:3000` }));
  });
  after(() => app.close());

  it('answers a preflight from an allowed origin with the methods, headers and max-age a GraphQL client needs', async () => {
    const preflight = await fetch(`${base}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), SHOP);
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, PUT, DELETE');
    assert.equal(
      preflight.headers.get('access-control-allow-headers'),
      'content-type, authorization, apollo-require-preflight, x-apollo-operation-name',
    );
    assert.equal(preflight.headers.get('access-control-max-age'), '600');
    assert.equal(preflight.headers.get('access-control-allow-credentials'), null, 'credentials are off unless configured');
    assert.match(preflight.headers.get('vary') ?? '', /\bOrigin\b/);
  });

  it('gives a preflight from another origin no Access-Control-Allow-Origin', async () => {
    const preflight = await fetch(`${base}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: OTHER, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.equal(preflight.headers.get('access-control-allow-methods'), null);
    assert.match(preflight.headers.get('vary') ?? '', /\bOrigin\b/);
  });

  it('marks REST answers alike whether computed, from the hot lane or from the cache by the route', async () => {
    for (const [origin, url, expected] of [
      [SHOP, '/products/2', asRead(ALLOWED_ANSWER)],
      [OTHER, '/products/5', asRead(REFUSED_ANSWER)],
    ] as const) {
      const computed = await fetch(`${base}${url}`, { headers: { origin } });
      assert.equal(computed.status, 200);
      assert.deepEqual(corsHeadersOf(computed.headers), expected, `computed, ${origin}`);
      assert.ok(app.services.cache.peek(restCacheKey(url)), 'the repeats are answered from the in-process cache');
      const hotLane = await fetch(`${base}${url}`, { headers: { origin } });
      assert.deepEqual(corsHeadersOf(hotLane.headers), expected, `hot lane, ${origin}`);
      const route = await app.inject({ url, headers: { origin } });
      assert.deepEqual(corsHeadersOf(route.headers), expected, `the route, from the cache, ${origin}`);
    }
    // No Origin (same-origin or not a browser): nothing to allow, but the answer still varies by it.
    assert.deepEqual(corsHeadersOf((await fetch(`${base}/products/2`)).headers), asRead(REFUSED_ANSWER));
  });

  it('marks GraphQL answers and errors, and a JSON POST passes CSRF prevention', async () => {
    const post = (body: string) =>
      fetch(`${base}/graphql`, { method: 'POST', headers: { origin: SHOP, 'content-type': 'application/json' }, body });
    const answer = await post(PRODUCT_QUERY);
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { data: { product: { name: 'Camo Onesie' } } });
    assert.deepEqual(corsHeadersOf(answer.headers), asGraphQL(asRead(ALLOWED_ANSWER)));
    const cached = await post(PRODUCT_QUERY);
    assert.deepEqual(corsHeadersOf(cached.headers), asGraphQL(asRead(ALLOWED_ANSWER)));
    const invalid = await post(JSON.stringify({ query: '{ nope }' }));
    assert.equal(invalid.status, 400);
    assert.deepEqual(corsHeadersOf(invalid.headers), asGraphQL(ALLOWED_ANSWER), 'a page can read the error');
  });

  it('marks 404 and 405 answers too', async () => {
    const missing = await fetch(`${base}/products/4`, { headers: { origin: SHOP } });
    assert.equal(missing.status, 404);
    assert.deepEqual(corsHeadersOf(missing.headers), ALLOWED_ANSWER);
    const wrongMethod = await fetch(`${base}/products/1/styles`, { method: 'DELETE', headers: { origin: SHOP } });
    assert.equal(wrongMethod.status, 405);
    assert.deepEqual(corsHeadersOf(wrongMethod.headers), ALLOWED_ANSWER);
  });
});

describe('CORS credentials', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase(), { CORS_ORIGINS: SHOP, CORS_CREDENTIALS: 'true' }));
  });
  after(() => app.close());

  it('allows credentials on preflights and on computed and hot-lane answers when configured', async () => {
    const preflight = await fetch(`${base}/graphql`, {
      method: 'OPTIONS',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');
    const expected = asRead({ ...ALLOWED_ANSWER, 'access-control-allow-credentials': 'true' });
    assert.deepEqual(corsHeadersOf((await fetch(`${base}/products/1`, { headers: { origin: SHOP } })).headers), expected);
    assert.deepEqual(corsHeadersOf((await fetch(`${base}/products/1`, { headers: { origin: SHOP } })).headers), expected);
  });
});

describe('CORS off (no CORS_ORIGINS)', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase());
  });
  after(() => app.close());

  it('sends no CORS headers and no Vary: Origin, and OPTIONS stays a 405', async () => {
    for (let i = 0; i < 2; i += 1) {
      const response = await app.inject({ url: '/products/1', headers: { origin: SHOP } });
      assert.deepEqual(corsHeadersOf(response.headers), {
        'access-control-allow-origin': undefined,
        'access-control-allow-credentials': undefined,
        'access-control-expose-headers': undefined,
        vary: 'accept-encoding',
      });
    }
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/graphql',
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 405);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  });
});

describe('CORS configuration', () => {
  it('takes a comma-separated list of origins and refuses anything that is not an origin', () => {
    assert.deepEqual(loadConfig({ CORS_ORIGINS: ' https://shop.example ,http://127.0.0.1:3000' }).CORS_ORIGINS, [
      'https://shop.example',
      'http://127.0.0.1:3000',
    ]);
    assert.deepEqual(loadConfig({}).CORS_ORIGINS, []);
    assert.equal(loadConfig({}).CORS_CREDENTIALS, false);
    for (const bad of ['https://shop.example/', 'https://shop.example/app', 'shop.example', '*']) {
      assert.throws(
        () => loadConfig({ CORS_ORIGINS: bad }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /CORS_ORIGINS: .* is not an origin/);
          return true;
        },
      );
    }
  });
});
