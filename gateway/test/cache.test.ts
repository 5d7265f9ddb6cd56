import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import {
  authorized,
  countStatements,
  createFixtureDatabase,
  eventually,
  graphql,
  metricValue,
  startGateway,
  startListeningGateway,
  testRedisUrl,
} from './support/gateway.js';
import { PRODUCT_PAGE_QUERY } from '../../scripts/test/product-page.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

describe('response cache shared through Redis by two gateway replicas', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  /** The second replica listens too, so its hot lane can be reached. */
  let secondBase: string;
  before(async () => {
    const databaseUrl = await createFixtureDatabase();
    const env = { REDIS_URL: testRedisUrl(1) };
    [first, { app: second, base: secondBase }] = await Promise.all([
      startGateway(databaseUrl, env),
      startListeningGateway(databaseUrl, env),
    ]);
  });
  after(() => Promise.all([first.close(), second.close()]));

  const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url });

  it('serves a response cached by one replica to the other without touching Postgres', async () => {
    const original = await get(first, '/products/1');
    await first.services.cache.settled(); // the Redis write happens after the reply
    const statements = await countStatements(second, async () => {
      const copy = await get(second, '/products/1');
      assert.equal(copy.body, original.body);
    });
    const metrics = await scrapeMetrics(second);
    const redisErrors = metrics.split('\n').filter((line) => line.startsWith('catalog_cache_errors_total'));
    assert.deepEqual(statements, [], `Redis errors so far: ${redisErrors.join('; ') || 'none'}`);
    assert.match(metrics, /catalog_cache_lookups_total\{backend="redis",result="hit"\} [1-9]/);
  });

  // Through `inject` the route answers from the cache; over a socket, the hot lane in front of Fastify.
  for (const [transport, styles, missing] of [
    ['inject', '/products/3/styles', '/products/999999/styles'],
    ['a socket (the hot lane)', '/products/2/styles', '/products/999998/styles'],
  ] as const) {
    it(`answers from Redis with one GET per request (no check script while the lease holds), each lookup and request counted once, through ${transport}`, async () => {
      const read = async (url: string) => {
        if (transport === 'inject') {
          const response = await get(second, url);
          return { status: response.statusCode, body: response.body, etag: response.headers.etag };
        }
        const response = await fetch(secondBase + url);
        return { status: response.status, body: await response.text(), etag: response.headers.get('etag') ?? undefined };
      };
      const original = await get(first, styles);
      await first.services.cache.settled();
      const inspector = new Redis(testRedisUrl(1));
      const monitor = await inspector.monitor(); // a connection of its own
      // A lookup is one GET of the response: what this replica heard judges it (rule 1), so the
      // check script, which names the response as its second key, is not run.
      const responseLookups: string[] = [];
      const checkScripts: string[] = [];
      monitor.on('monitor', (_time: string, args: string[], source: string, database: string) => {
        const call = args[0]?.toLowerCase();
        if (database !== '1' || source === 'lua') return;
        if (call === 'get' && args[1]?.startsWith('catalog:3:response:')) responseLookups.push(args[1]);
        if ((call === 'evalsha' || call === 'eval') && args[4]?.startsWith('catalog:3:response:')) checkScripts.push(args[4]);
      });
      try {
        const before = await scrapeMetrics(second);
        let copy: Awaited<ReturnType<typeof read>> | undefined;
        const statements = await countStatements(second, async () => {
          copy = await read(styles);
        });
        const redisOutcomes = await Promise.all(
          [first, second].map(async (replica) =>
            (await scrapeMetrics(replica))
              .split('\n')
              .filter((line) => /^catalog_(cache_errors_total|cache_shared_stores_total|redis_circuit_state|coherence_)/.test(line))
              .join('; '),
          ),
        );
        assert.deepEqual(statements, [], `Redis outcomes: ${redisOutcomes.join(' | ')}`);
        assert.equal(copy!.status, 200);
        assert.equal(copy!.body, original.body);
        assert.equal(copy!.etag, original.headers.etag);
        assert.equal((await read(missing)).status, 404);
        const after = await scrapeMetrics(second);
        const grew = (series: string) => metricValue(after, series) - metricValue(before, series);
        const requestsGrew = (status: number) => {
          const count = (metrics: string) =>
            metrics
              .split('\n')
              .filter((line) => line.startsWith('catalog_http_requests_total{'))
              .filter((line) =>
                ['method="GET"', 'route="/products/:product_id/styles"', `status_code="${status}"`].every((label) => line.includes(label)),
              )
              .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
          return count(after) - count(before);
        };
        // A hit from Redis and a miss everywhere: each asks memory once and Redis once.
        assert.equal(grew('catalog_cache_lookups_total{backend="memory",result="miss"}'), 2);
        assert.equal(grew('catalog_cache_lookups_total{backend="memory",result="hit"}'), 0);
        assert.equal(grew('catalog_cache_lookups_total{backend="redis",result="hit"}'), 1);
        assert.equal(grew('catalog_cache_lookups_total{backend="redis",result="miss"}'), 1);
        assert.equal(requestsGrew(200), 1);
        assert.equal(requestsGrew(404), 1);
        await eventually('MONITOR has seen both lookups', async () => responseLookups.length >= 2);
        assert.equal(responseLookups.length, 2, `Redis lookups: ${responseLookups.join(', ')}`);
        assert.deepEqual(checkScripts, []);
      } finally {
        monitor.disconnect();
        inspector.disconnect();
      }
    });
  }

  it('evicts exactly the responses built from a product when another replica writes it', async () => {
    const urls = [
      '/products/1',
      '/products/1/styles',
      '/products/2/related',
      '/products/5/styles',
      '/products/3',
      '/products?page=1&count=2',
    ];
    for (const url of urls) await get(first, url);
    const cachedPage = await graphql(first, PRODUCT_PAGE_QUERY, { id: '5' }); // lists product 1 as related
    assert.equal(cachedPage.statusCode, 200);

    const update = await second.inject({ method: 'PUT', url: '/products/1', headers: authorized, payload: { name: 'Camo Onesie II' } });
    assert.equal(update.statusCode, 200);
    assert.equal(update.json().name, 'Camo Onesie II');

    // The first replica hears of the write through Redis pub/sub and drops its in-process copies.
    await eventually('first replica sees the new name', async () => (await get(first, '/products/1')).json().name === 'Camo Onesie II');
    const product5Page = (await graphql(first, PRODUCT_PAGE_QUERY, { id: '5' })).json();
    assert.equal(product5Page.data.product.related[0].name, 'Camo Onesie II');

    // Responses that contain product 1 were rebuilt; those that do not are still cached.
    for (const [url, touchesProduct1] of [
      ['/products/1/styles', true],
      ['/products/2/related', true],
      ['/products?page=1&count=2', true],
      ['/products/5/styles', false],
      ['/products/3', false],
    ] as const) {
      const statements = await countStatements(first, () => get(first, url));
      assert.equal(statements.length > 0, touchesProduct1, `${url}: ${statements.length} statements`);
    }
  });

  it('evicts list pages when a product is created or deleted', async () => {
    const before = (await get(first, '/products?page=1&count=100')).json() as { id: number }[];
    const created = await second.inject({
      method: 'POST',
      url: '/products',
      headers: authorized,
      payload: { name: 'New', default_price: '5' },
    });
    assert.equal(created.statusCode, 201);
    const id = created.json().id as number;
    await eventually('new product listed', async () =>
      ((await get(first, '/products?page=1&count=100')).json() as { id: number }[]).some((product) => product.id === id),
    );
    const removed = await second.inject({ method: 'DELETE', url: `/products/${id}`, headers: authorized });
    assert.equal(removed.statusCode, 204);
    await eventually(
      'deleted product gone from the list',
      async () => ((await get(first, '/products?page=1&count=100')).json() as { id: number }[]).length === before.length,
    );
    await eventually('deleted product is 404', async () => (await get(first, `/products/${id}`)).statusCode === 404);
  });

  it('never caches mutations: repeating one runs it again', async () => {
    const mutation = 'mutation { updateProduct(id: 3, input: { category: "Trousers" }) { updatedAt } }';
    const firstRun = (await graphql(first, mutation, undefined, authorized)).json().data.updateProduct.updatedAt;
    const statements = await countStatements(first, () => graphql(first, mutation, undefined, authorized));
    assert.equal(statements.length, 1);
    assert.ok(firstRun);
  });
});

describe('single-flight', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase(), { REDIS_URL: testRedisUrl(2) });
  });
  after(() => app.close());

  it('answers a burst of identical REST misses with one database trip', async () => {
    const statements = await countStatements(app, async () => {
      const responses = await Promise.all(Array.from({ length: 25 }, () => app.inject({ method: 'GET', url: '/products/1/styles' })));
      assert.ok(responses.every((response) => response.statusCode === 200 && response.body === responses[0]!.body));
    });
    // Once, not 25 times.
    assert.equal(statements.length, 1, statements.join('\n'));
  });

  it('answers a burst of identical GraphQL misses with one execution', async () => {
    const statements = await countStatements(app, async () => {
      const responses = await Promise.all(Array.from({ length: 25 }, () => graphql(app, PRODUCT_PAGE_QUERY, { id: '2' })));
      assert.ok(responses.every((response) => response.statusCode === 200 && response.body === responses[0]!.body));
    });
    assert.equal(statements.length, 2, statements.join('\n'));
  });
});
