// A REST query string names exactly what the answer depends on: a parameter a route does not take
// is a 400 naming it (an ignored one was served, and cached as a new entry of the same answer).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { parseProductListQuery, type ProductListParameters } from '../src/paging/product-list-query.js';
import { countStatements, createFixtureDatabase, startGateway, startListeningGateway } from './support/gateway.js';

const ROUTES = ['/products', '/products/1', '/products/1/styles', '/products/1/related'];
const LIST_PARAMETERS = 'page, count, category, min_price, max_price, q, sort';

describe('unknown REST query parameters', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase()));
  });
  after(() => app.close());

  it('are a 400 naming every one of them, on every REST GET and HEAD route', async () => {
    for (const route of ROUTES) {
      const takes = route === '/products' ? LIST_PARAMETERS : 'none';
      for (const method of ['GET', 'HEAD'] as const) {
        const one = await app.inject({ method, url: `${route}?x=1` });
        assert.equal(one.statusCode, 400, `${method} ${route}?x=1: ${one.body}`);
        if (method === 'GET') {
          assert.equal(one.json().error, `invalid querystring: unknown parameter "x" (this route takes ${takes})`);
        }
        const two = await app.inject({ method, url: `${route}?page=1&utm_source=mail&fbclid=abc` });
        assert.equal(two.statusCode, 400, `${method} ${route}: ${two.body}`);
        if (method === 'GET') assert.match(two.json().error, /unknown parameters "utm_source", "fbclid"|unknown parameters .*"page"/);
      }
      assert.equal((await app.inject({ method: 'GET', url: route })).statusCode, 200, `${route} without parameters`);
    }
    assert.equal((await app.inject({ method: 'GET', url: '/products?page=2&count=1&sort=name_asc&q=camo' })).statusCode, 200);
  });

  it('are refused over a real socket, after the hot lane: a junk parameter is never served, stored or read from Postgres', async () => {
    for (const route of ROUTES) {
      const cached = await fetch(`${base}${route}`);
      assert.equal(cached.status, 200);
      await cached.arrayBuffer();
      const statements = await countStatements(app, async () => {
        for (let request = 0; request < 50; request += 1) {
          const junk = await fetch(`${base}${route}?x=${randomBytes(8).toString('hex')}`);
          assert.equal(junk.status, 400, `${route} with a junk parameter`);
          assert.match((await junk.json()).error, /unknown parameter "x"/);
        }
      });
      // Nothing read, nothing computed: nothing that could have been stored.
      assert.deepEqual(statements, [], `${route}: no junk request reached Postgres`);
    }
  });

  it('are documented: every REST GET route says so, and its query schema allows nothing else', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const route of ['/products', '/products/{product_id}', '/products/{product_id}/styles', '/products/{product_id}/related']) {
      const get = document.paths[route].get;
      assert.match(get.description, /query parameter the route does not take is a 400/, route);
      assert.ok(get.responses['400'], `${route} documents its 400`);
      assert.equal(get['x-additional-query-parameters'], false, `${route}: no other parameters`);
    }
    const names = document.paths['/products'].get.parameters
      .filter((p: { in: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name);
    assert.deepEqual(names, LIST_PARAMETERS.split(', '));
  });
});

describe('the list query parses into one canonical value (what a cache key of a list may be built from)', () => {
  const canonical = (parameters: Partial<ProductListParameters>) =>
    JSON.stringify(parseProductListQuery({ page: 1, count: 5, ...parameters }));

  it('gives requests answered alike by construction the same value, and others different ones', () => {
    const same: Partial<ProductListParameters>[][] = [
      [{}, { sort: 'id_asc' }, { page: 1 }, { count: 5, page: 1, sort: 'id_asc' }],
      [{ min_price: '20' }, { min_price: '20.00' }, { min_price: '020.0' }],
      [
        { max_price: '9.5', sort: 'price_asc' },
        { sort: 'price_asc', max_price: '9.50' },
      ],
      [{ q: 'camo ones' }, { q: 'Ones  CAMO' }, { q: 'ones, camo, ones!' }, { q: 'ｃａｍｏ ones' }],
      [
        { category: 'Jackets', q: 'camo' },
        { q: 'CAMO', category: 'Jackets' },
      ],
    ];
    for (const group of same) {
      assert.equal(new Set(group.map(canonical)).size, 1, JSON.stringify(group));
    }
    const different = [
      {},
      { page: 2 },
      { count: 6 },
      { sort: 'price_asc' },
      { category: 'jackets' },
      { category: 'Jackets' },
      { q: 'camo' },
    ];
    assert.equal(new Set(different.map(canonical)).size, different.length);
    assert.deepEqual(parseProductListQuery({ page: 3, count: 4, category: 'Kicks', min_price: '100', q: 'Camo Ones', sort: 'name_asc' }), {
      page: 3,
      count: 4,
      sort: 'NAME_ASC',
      filter: { category: 'Kicks', minPrice: '100.00', searchQuery: 'camo:* & ones:*' },
    });
  });

  it('answers equal values with the same body', async () => {
    const app = await startGateway(await createFixtureDatabase(), { CACHE_TTL_SECONDS: '0' });
    try {
      for (const group of [
        ['/products', '/products?sort=id_asc', '/products?page=1&count=5'],
        ['/products?min_price=20', '/products?min_price=20.00'],
        ['/products?q=camo%20ones', '/products?q=ONES+camo'],
      ]) {
        const bodies = await Promise.all(group.map(async (url) => (await app.inject({ method: 'GET', url })).body));
        assert.equal(new Set(bodies).size, 1, group.join(' '));
      }
    } finally {
      await app.close();
    }
  });
});
