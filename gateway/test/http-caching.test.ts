import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { PRODUCT_PAGE_QUERY } from '../../scripts/test/product-page.js';
import {
  authorized,
  countStatements,
  createFixtureDatabase,
  graphql,
  startGateway,
  startListeningGateway,
  seedBeforeGatewaysStart,
  testRedisUrl,
} from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const READ_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300';
const STRONG_ETAG = /^"[\w-]{22}(-gzip|-br)?"$/;
// Product 1's related ids are 7 bytes: left alone. The fixture's bodies are all near or under
// the compression threshold: each suite creates a product with a long description (BIG).
const SMALL = '/products/1/related';
let BIG = '';

/** A description that makes a product's body (4 KB) well over the compression threshold. */
const BIG_DESCRIPTION = Array.from({ length: 80 }, (_, index) => `Layer ${index}: canvas, brass buttons, double stitching.`).join(' ');

/** Creates a product whose body is well over the compression threshold; returns its path. */
async function createBigProduct(app: FastifyInstance): Promise<string> {
  const created = await app.inject({
    method: 'POST',
    url: '/products',
    headers: authorized,
    payload: { name: 'Big Parka', description: BIG_DESCRIPTION },
  });
  assert.equal(created.statusCode, 201, created.body);
  return `/products/${created.json().id}`;
}

const get = (app: FastifyInstance, url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

/** The body as sent, decoded by its Content-Encoding. */
function decoded(response: { headers: IncomingHttpHeaders | LightMyRequestResponse['headers']; rawPayload: Buffer }): string {
  const coding = response.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(response.rawPayload).toString();
  if (coding === 'gzip') return gunzipSync(response.rawPayload).toString();
  assert.equal(coding, undefined);
  return response.rawPayload.toString();
}

/** A GraphQL answer also varies by Accept: its media type follows it (graphql-response+json or JSON). */
const GRAPHQL_VARY = 'accept-encoding, accept';

function assertCatalogRead(response: LightMyRequestResponse, what: string, vary = 'accept-encoding'): void {
  assert.equal(response.statusCode, 200, `${what}: ${response.body}`);
  assert.match(String(response.headers.etag), STRONG_ETAG, what);
  assert.equal(response.headers['cache-control'], READ_CACHE_CONTROL, what);
  assert.equal(response.headers.vary, vary, what);
}

const productPageGetUrl = (id: string, extra = '') =>
  `/graphql?query=${encodeURIComponent(PRODUCT_PAGE_QUERY)}&operationName=ProductPage&variables=${encodeURIComponent(JSON.stringify({ id }))}${extra}`;

describe('HTTP caching, compression and GraphQL over GET (in-process: answered by the routes)', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase());
    BIG = await createBigProduct(app);
  });
  after(() => app.close());

  it('gives REST reads an ETag and Cache-Control on the first miss and on hits, and the same ETag both times', async () => {
    const miss = await get(app, '/products/3');
    const hit = await get(app, '/products/3');
    assertCatalogRead(miss, 'miss');
    assertCatalogRead(hit, 'hit');
    assert.equal(hit.headers.etag, miss.headers.etag);
    assert.equal(hit.body, miss.body);
  });

  it('answers If-None-Match with 304 and no body, on the route (miss) and in the hook (hit), lists and weak tags included', async () => {
    const fresh = await app.inject({ method: 'GET', url: '/products/2/styles' });
    const etag = String(fresh.headers.etag);
    const forms = [etag, `W/${etag}`, `"other", ${etag}`, `"a,b", W/${etag}`, '*'];
    for (const ifNoneMatch of forms) {
      const response = await get(app, '/products/2/styles', { 'if-none-match': ifNoneMatch });
      assert.equal(response.statusCode, 304, ifNoneMatch);
      assert.equal(response.body, '', ifNoneMatch);
      assert.equal(response.headers.etag, etag, ifNoneMatch);
      assert.equal(response.headers['cache-control'], READ_CACHE_CONTROL, ifNoneMatch);
      assert.equal(response.headers.vary, 'accept-encoding', ifNoneMatch);
      assert.equal(response.headers['content-type'], undefined, ifNoneMatch);
    }
    const stale = await get(app, '/products/2/styles', { 'if-none-match': '"not-it", W/"nor-this"' });
    assert.equal(stale.statusCode, 200);
    assert.equal(stale.body, fresh.body);

    // The route itself answers conditional requests the same way: the query in another order is
    // another cache key (a miss), with the same body and so the same ETag.
    const missEtag = String((await app.inject({ method: 'GET', url: '/products?page=2&count=2' })).headers.etag);
    const conditionalMiss = await get(app, '/products?count=2&page=2', { 'if-none-match': missEtag });
    assert.equal(conditionalMiss.statusCode, 304);
  });

  it('answers HEAD like GET, with Content-Length and no body, from the route and from the hook', async () => {
    await get(app, BIG);
    // BIG is cached (a hit, answered by the hook); a product never asked for is a miss, answered by the route.
    for (const [when, url] of [
      ['hit', BIG],
      ['miss', await createBigProduct(app)],
    ] as const) {
      const head = await app.inject({ method: 'HEAD', url, headers: { 'accept-encoding': 'br' } });
      const full = await get(app, url, { 'accept-encoding': 'br' });
      assert.equal(head.statusCode, 200, when);
      assert.equal(head.body, '', when);
      assert.equal(head.headers['content-length'], full.headers['content-length'], when);
      assert.equal(head.headers.etag, full.headers.etag, when);
      assert.equal(head.headers['cache-control'], READ_CACHE_CONTROL, when);
    }
  });

  it('compresses big reads with gzip or brotli as Accept-Encoding asks (q-values respected), to the same bytes', async () => {
    const identity = await get(app, BIG);
    assert.equal(identity.headers['content-encoding'], undefined);
    const cases: Array<[string, string | undefined]> = [
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['identity, gzip;q=0.5', undefined],
      ['br;q=0, gzip;q=0', undefined],
      ['*', 'br'],
      ['zstd', undefined],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const response = await get(app, BIG, { 'accept-encoding': acceptEncoding });
      assert.equal(response.headers['content-encoding'], expected, acceptEncoding);
      assert.equal(Number(response.headers['content-length']), response.rawPayload.length, acceptEncoding);
      assert.equal(decoded(response), identity.body, acceptEncoding);
      if (expected) {
        assert.ok(response.rawPayload.length < identity.rawPayload.length, acceptEncoding);
        // Each encoding is its own representation with its own strong ETag, derived from the same body.
        assert.equal(response.headers.etag, `${String(identity.headers.etag).slice(0, -1)}-${expected}"`);
      } else {
        assert.equal(response.headers.etag, identity.headers.etag);
      }
    }
    const etagOfBrotli = String((await get(app, BIG, { 'accept-encoding': 'br' })).headers.etag);
    assert.equal((await get(app, BIG, { 'accept-encoding': 'br', 'if-none-match': etagOfBrotli })).statusCode, 304);
  });

  it('leaves small bodies uncompressed', async () => {
    const response = await get(app, SMALL, { 'accept-encoding': 'gzip, br' });
    assertCatalogRead(response, SMALL);
    assert.equal(response.headers['content-encoding'], undefined);
    assert.ok(response.rawPayload.length < 1_024);
    assert.deepEqual(response.json(), [2, 5, 3]);
  });

  it('marks writes, errors and GraphQL responses with errors no-store, without an ETag', async () => {
    const responses: Array<[string, LightMyRequestResponse]> = [
      ['404', await get(app, '/products/999')],
      ['400', await get(app, '/products?count=1000')],
      ['write', await app.inject({ method: 'PUT', url: '/products/3', headers: authorized, payload: { category: 'Pants' } })],
      ['unauthorised write', await app.inject({ method: 'DELETE', url: '/products/1' })],
      ['mutation', await graphql(app, 'mutation { deleteProduct(id: "999") }', undefined, authorized)],
      ['query with errors', await graphql(app, '{ product(id: "not-a-number") { id } }')],
    ];
    for (const [what, response] of responses) {
      assert.equal(response.headers['cache-control'], 'no-store', what);
      assert.equal(response.headers.etag, undefined, what);
    }
  });

  it('runs a query over GET like over POST, cached, with an ETag, 304 and HEAD', async () => {
    const post = await graphql(app, PRODUCT_PAGE_QUERY, { id: '1' });
    const viaGet = await get(app, productPageGetUrl('1'), { 'accept-encoding': 'gzip' });
    assertCatalogRead(viaGet, 'GET', GRAPHQL_VARY);
    assert.equal(viaGet.headers['content-encoding'], 'gzip');
    assert.equal(decoded(viaGet), post.body);
    assert.equal(JSON.parse(post.body).data.product.name, 'Camo Onesie');

    // Same cache as POST: answered without the database.
    const statements = await countStatements(app, async () => {
      const again = await get(app, productPageGetUrl('1'), { 'if-none-match': String(post.headers.etag) });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      const head = await app.inject({ method: 'HEAD', url: productPageGetUrl('1') });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-length'], post.headers['content-length']);
    });
    assert.deepEqual(statements, []);

    const fresh = await get(app, productPageGetUrl('3'));
    assertCatalogRead(fresh, 'a GET miss', GRAPHQL_VARY);
    assert.equal(fresh.json().data.product.name, 'Morning Joggers');
  });

  it('refuses a mutation over GET with 405 and Allow: POST, before it runs', async () => {
    const mutation = 'mutation Remove { deleteProduct(id: "1") }';
    const response = await get(app, `/graphql?query=${encodeURIComponent(mutation)}`, authorized);
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'POST');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.match(response.json().errors[0].message, /mutations are not allowed over GET: use POST/);
    assert.equal((await get(app, '/products/1')).statusCode, 200, 'product 1 still exists');
  });

  it('answers 400 naming a GET parameter that is not valid JSON or given twice', async () => {
    const query = encodeURIComponent('{ product(id: "1") { id } }');
    for (const [search, named] of [
      [`query=${query}&variables=%7Bnope`, 'variables'],
      [`query=${query}&extensions=%5B1`, 'extensions'],
      [`query=${query}&query=${query}`, 'query'],
    ] as const) {
      const response = await get(app, `/graphql?${search}`);
      assert.equal(response.statusCode, 400, search);
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.match(response.json().errors[0].message, new RegExp(`the ${named} parameter`), search);
    }
  });
});

describe('HTTP caching with the response cache off', () => {
  let app: FastifyInstance;
  let cached: FastifyInstance;
  before(async () => {
    const databaseUrl = await createFixtureDatabase();
    [app, cached] = await Promise.all([startGateway(databaseUrl, { CACHE_TTL_SECONDS: '0' }), startGateway(databaseUrl)]);
    BIG = await createBigProduct(app);
  });
  after(() => Promise.all([app.close(), cached.close()]));

  it('still sends the same ETag, compression and 304s', async () => {
    const response = await get(app, BIG, { 'accept-encoding': 'br' });
    assertCatalogRead(response, 'cache off');
    assert.equal(response.headers.etag, (await get(cached, BIG, { 'accept-encoding': 'br' })).headers.etag);
    assert.equal(response.headers['content-encoding'], 'br');
    const conditional = await get(app, BIG, { 'accept-encoding': 'br', 'if-none-match': String(response.headers.etag) });
    assert.equal(conditional.statusCode, 304);
  });
});

/** A raw HTTP exchange (no client-side decompression), for the hot lane in front of Fastify. */
function exchange(
  base: string,
  path: string,
  method = 'GET',
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; rawPayload: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, rawPayload: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

describe('hot lane: ETags, 304, HEAD and compression in front of Fastify', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase()));
    BIG = await createBigProduct(app);
  });
  after(() => app.close());

  it('answers cached reads in the encoding asked for, 304 for a current copy, and HEAD, without the database', async () => {
    const identity = await exchange(base, BIG);
    const brotli = await exchange(base, BIG, 'GET', { 'accept-encoding': 'gzip, deflate, br' });
    await exchange(base, SMALL);
    let results: Array<Awaited<ReturnType<typeof exchange>>> = [];
    const statements = await countStatements(app, async () => {
      results = [
        await exchange(base, BIG, 'GET', { 'accept-encoding': 'gzip', 'x-request-id': 'hot-gzip' }),
        await exchange(base, BIG, 'GET', { 'accept-encoding': 'gzip, deflate, br', 'if-none-match': String(brotli.headers.etag) }),
        await exchange(base, BIG, 'HEAD', { 'accept-encoding': 'br' }),
        await exchange(base, SMALL, 'GET'),
        await exchange(base, SMALL, 'GET', { 'accept-encoding': 'br' }),
      ];
    });
    const [gzip, notModified, head, small, smallAskedBrotli] = results;
    assert.deepEqual(statements, []);

    assert.equal(brotli.headers['content-encoding'], 'br');
    assert.equal(decoded(brotli), identity.rawPayload.toString());
    assert.equal(gzip!.headers['content-encoding'], 'gzip');
    assert.equal(gzip!.headers['x-request-id'], 'hot-gzip');
    assert.equal(decoded(gzip!), identity.rawPayload.toString());
    assert.equal(gzip!.headers['cache-control'], READ_CACHE_CONTROL);
    assert.equal(gzip!.headers.vary, 'accept-encoding');

    assert.equal(notModified!.status, 304);
    assert.equal(notModified!.rawPayload.length, 0);
    assert.equal(notModified!.headers.etag, brotli.headers.etag);
    assert.equal(notModified!.headers['cache-control'], READ_CACHE_CONTROL);
    assert.equal(notModified!.headers.vary, 'accept-encoding');

    assert.equal(head!.status, 200);
    assert.equal(head!.rawPayload.length, 0);
    assert.equal(head!.headers['content-length'], brotli.headers['content-length']);
    assert.equal(head!.headers['content-encoding'], 'br');

    assert.equal(smallAskedBrotli!.headers['content-encoding'], undefined);
    assert.deepEqual(smallAskedBrotli!.rawPayload, small!.rawPayload);
    assert.equal(smallAskedBrotli!.headers.etag, small!.headers.etag);

    const metrics = await scrapeMetrics(app);
    const requestCounts = metrics.split('\n').filter((line) => line.startsWith('catalog_http_requests_total{'));
    assert.ok(
      requestCounts.includes('catalog_http_requests_total{method="GET",route="/products/:product_id",status_code="304"} 1'),
      requestCounts.join('\n'),
    );
    assert.ok(
      requestCounts.includes('catalog_http_requests_total{method="HEAD",route="/products/:product_id",status_code="200"} 1'),
      requestCounts.join('\n'),
    );
  });
});

describe('HTTP caching across two replicas sharing Redis', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  before(async () => {
    const databaseUrl = await createFixtureDatabase();
    // Written to the database before the replicas start, as part of the catalog, not through one
    // of them nor as a captured change: a replica stores a response in Redis only once it has
    // heard of every write before it read it, and a write's invalidation reaches even the writer
    // asynchronously (racing the first read, the first replica kept the body to itself, or its
    // Redis copy was invalidated, and the second read Postgres).
    BIG = await seedBeforeGatewaysStart(databaseUrl, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO catalog.products (name, description) VALUES ('Big Parka', $1) RETURNING id`,
        [BIG_DESCRIPTION],
      );
      return `/products/${rows[0]!.id}`;
    });
    const env = { REDIS_URL: testRedisUrl(11) };
    [first, second] = await Promise.all([startGateway(databaseUrl, env), startGateway(databaseUrl, env)]);
  });
  after(() => Promise.all([first.close(), second.close()]));

  it('serves a response the other replica cached with the same ETags and encodings', async () => {
    const original = await get(first, BIG, { 'accept-encoding': 'br' });
    const originalGraphql = await get(first, productPageGetUrl('5'));
    await first.services.cache.settled();
    const statements = await countStatements(second, async () => {
      const copy = await get(second, BIG, { 'accept-encoding': 'br' });
      assert.equal(copy.headers.etag, original.headers.etag);
      assert.equal(decoded(copy), decoded(original));
      const conditional = await get(second, productPageGetUrl('5'), { 'if-none-match': String(originalGraphql.headers.etag) });
      assert.equal(conditional.statusCode, 304);
    });
    assert.deepEqual(statements, []);
  });
});
