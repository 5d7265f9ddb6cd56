import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import { authorized, countStatements, createCatalog, eventually, startGateway, withClient } from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

// 4,321 products with gaps in the ids (every 7th id missing), so positions and ids differ.
const SEED = `
SET search_path TO catalog;
INSERT INTO products (id, name) SELECT g, 'Product ' || g FROM generate_series(1, 5042) g WHERE g % 7 <> 0;
SELECT setval(pg_get_serial_sequence('products', 'id'), 6000);
`;

describe('page/count paging', () => {
  let app: FastifyInstance;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createTestDatabase('paging');
    await createCatalog(databaseUrl, SEED);
    app = await startGateway(databaseUrl, { CACHE_TTL_SECONDS: '0' });
  });
  after(() => app.close());

  /** The ids OFFSET paging over id order would return: what the keyset pages must equal. */
  const offsetPage = (page: number, count: number) =>
    withClient(databaseUrl, async (client) => {
      const { rows } = await client.query('SELECT id::int FROM catalog.products ORDER BY id OFFSET $1 LIMIT $2', [
        (page - 1) * count,
        count,
      ]);
      return rows.map((row) => row.id as number);
    });

  const gatewayPage = async (page: number, count: number) => {
    const response = await app.inject({ method: 'GET', url: `/products?page=${page}&count=${count}` });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { id: number }[]).map((product) => product.id);
  };

  it('returns exactly what OFFSET paging returns, at every depth and page size', async () => {
    const cases: [number, number][] = [
      [1, 5],
      [2, 5],
      [200, 5],
      [201, 5],
      [199, 5],
      [865, 5],
      [866, 5],
      [1000, 5],
      [1, 100],
      [10, 100],
      [11, 100],
      [43, 100],
      [44, 100],
      [333, 3],
      [334, 3],
      [1441, 3],
      [1, 1],
      [4321, 1],
      [4322, 1],
    ];
    for (const [page, count] of cases) {
      assert.deepEqual(await gatewayPage(page, count), await offsetPage(page, count), `page ${page} count ${count}`);
    }
  });

  it('reaches deep pages with one bounded keyset statement, not an OFFSET scan', async () => {
    await gatewayPage(800, 5); // builds the position anchors once
    const statements = await countStatements(app, () => gatewayPage(801, 5));
    assert.equal(statements.length, 1);
    assert.match(statements[0]!, /WHERE id > \$1 ORDER BY id OFFSET \$2 LIMIT \$3/);
  });

  it('stays exact after products are deleted and created through the gateway', async () => {
    const before = await gatewayPage(500, 5);
    for (const id of [3, 1500, 2999]) {
      const response = await app.inject({ method: 'DELETE', url: `/products/${id}`, headers: authorized });
      assert.equal(response.statusCode, 204);
    }
    const created = await app.inject({ method: 'POST', url: '/products', headers: authorized, payload: { name: 'Newest' } });
    assert.equal(created.statusCode, 201);
    const after = await gatewayPage(500, 5);
    assert.notDeepEqual(after, before, 'three deletions before this page shift it');
    for (const [page, count] of [
      [500, 5],
      [864, 5],
      [865, 5],
      [1, 100],
      [44, 100],
    ] as [number, number][]) {
      assert.deepEqual(await gatewayPage(page, count), await offsetPage(page, count), `page ${page} count ${count}`);
    }
  });

  it('rejects bad page and count values with 400 naming the parameter', async () => {
    const cases = [
      ['count=0', /count must be >= 1/],
      ['count=101', /count must be <= 100/],
      ['count=abc', /count must be integer/],
      ['page=0', /page must be >= 1/],
      ['page=-4', /page must be >= 1/],
      ['page=1.5', /page must be integer/],
      ['page=999999999999', /page must be <= 100000000/],
    ] as const;
    for (const [query, message] of cases) {
      const response = await app.inject({ method: 'GET', url: `/products?${query}` });
      assert.equal(response.statusCode, 400, query);
      assert.match(response.json().error, message, query);
    }
  });
});

// Page anchors follow the catalog events, not the response cache: with the cache off, a replica
// still hears through Redis that another one added or removed products. A private Redis: pub/sub
// channels span Redis's databases, so the suite's shared Redis would carry these announcements
// to every other test's gateway.
describe('page/count paging across replicas with the cache off', () => {
  let redis: RedisServer;
  let reader: FastifyInstance;
  let writer: FastifyInstance;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createTestDatabase('paging-replicas');
    await createCatalog(databaseUrl, SEED);
    redis = await startRedis();
    const env = { CACHE_TTL_SECONDS: '0', REDIS_URL: redis.url };
    [reader, writer] = await Promise.all([startGateway(databaseUrl, env), startGateway(databaseUrl, env)]);
  });
  after(async () => {
    await Promise.all([reader.close(), writer.close()]);
    await redis.stop();
  });

  const ids = async (app: FastifyInstance, url: string) =>
    ((await app.inject({ method: 'GET', url })).json() as { id: number }[]).map((product) => product.id);

  it('moves deep pages at once when another replica deletes a product before them', async () => {
    const url = '/products?page=600&count=5';
    const before = await ids(reader, url); // builds the reader's anchors
    const deleted = await writer.inject({ method: 'DELETE', url: '/products/10', headers: authorized });
    assert.equal(deleted.statusCode, 204);
    const expected = await withClient(databaseUrl, async (client) =>
      (await client.query('SELECT id::int FROM catalog.products ORDER BY id OFFSET 2995 LIMIT 5')).rows.map((row) => row.id as number),
    );
    assert.notDeepEqual(expected, before, 'the deletion shifts the page');
    // Well inside the anchors' 60 s age limit: the reader heard of the deletion.
    await eventually(
      'the reader pages past the deleted product',
      async () => JSON.stringify(await ids(reader, url)) === JSON.stringify(expected),
    );
    const metrics = await scrapeMetrics(writer);
    assert.doesNotMatch(metrics, /catalog_cache_errors_total\{backend="redis",operation="invalidate"\}/, 'Redis took the announcement');
  });
});
