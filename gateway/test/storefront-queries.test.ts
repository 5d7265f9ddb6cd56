import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import type { Database } from '../src/db/database.js';
import { SEARCH_COST } from '../src/graphql/complexity-limit.js';
import { decodeCursor } from '../src/paging/cursor.js';
import { parseProductFilter, type ProductFilterInput } from '../src/paging/product-filter.js';
import { PRODUCT_SORTS, type ProductSortName } from '../src/paging/product-sort.js';
import { ProductListingRepository } from '../src/repository/product-listing.js';
import { authorized, countStatements, createCatalog, graphql, startGateway, withClient } from './support/gateway.js';

// 60,000 products: enough that a sequential scan is what the planner would pick without the
// indexes. Prices repeat (995 values, a quarter of them .25 steps) and 1 in 97 has none; names
// repeat; creation times repeat down to the microsecond: every sort has ties for id to break.
const PRODUCTS = 60_000;
const SEED = `
SET search_path TO catalog;
INSERT INTO products (id, name, category, default_price, created_at)
SELECT g,
  (ARRAY['Camo','Bright','Heavy','Slim','Retro'])[1 + g % 5] || ' '
    || (ARRAY['Onesie','Jacket','Joggers','Sneakers','Cap','Shorts','Tee'])[1 + (g / 5) % 7] || ' No' || (g % 997),
  (ARRAY['Jackets','Accessories','Pants','Kicks','Dress Shoes','Shirts','Shorts','Hats'])[1 + (g * 7) % 8],
  CASE WHEN g % 97 = 0 THEN NULL ELSE 5 + (g::bigint * 7919) % 995 + (g % 4) * 0.25 END,
  timestamptz '2024-01-01 00:00:00+00' + ((g::bigint * 104729) % 20000) * interval '1 second' + (g % 3) * interval '1 microsecond'
FROM generate_series(1, ${PRODUCTS}) g;
SELECT setval(pg_get_serial_sequence('products', 'id'), ${PRODUCTS});
ANALYZE products;
`;

/** Each sort as plain SQL over the same table: the reference order pages must follow. */
const REFERENCE_ORDER: Record<ProductSortName, string> = {
  ID_ASC: 'id',
  PRICE_ASC: 'default_price ASC NULLS LAST, id',
  PRICE_DESC: 'default_price DESC NULLS LAST, id DESC',
  NAME_ASC: 'name, id',
  NAME_DESC: 'name DESC, id DESC',
  NEWEST: 'created_at DESC, id DESC',
  OLDEST: 'created_at, id',
};
const SORTS = Object.keys(PRODUCT_SORTS) as ProductSortName[];

const FILTERS: Record<string, ProductFilterInput> = {
  none: {},
  category: { category: 'Hats' },
  'price range': { minPrice: '100', maxPrice: '140.50' },
  'category + price range': { category: 'Kicks', minPrice: '500' },
  search: { search: 'camo jack' },
  'category + search': { category: 'Pants', search: 'retro' },
};
const FILTER_NAMES = { category: 'category', minPrice: 'minPrice', maxPrice: 'maxPrice', search: 'search' };

const CONNECTION = `query Page($first: Int, $after: String, $filter: ProductFilter, $sort: ProductSort) {
  productsConnection(first: $first, after: $after, filter: $filter, sort: $sort) {
    edges { cursor node { id } } pageInfo { hasNextPage endCursor }
  }
}`;

describe('storefront queries: filters, sorts and keyset pages', () => {
  let app: FastifyInstance;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createTestDatabase('storefront');
    await createCatalog(databaseUrl, SEED);
    app = await startGateway(databaseUrl, { CACHE_TTL_SECONDS: '0' });
  });
  after(() => app.close());

  const page = async (variables: Record<string, unknown>) => {
    const response = await graphql(app, CONNECTION, variables);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data.productsConnection as {
      edges: { cursor: string; node: { id: string } }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };

  /** Every id the connection yields, page after page. */
  const walk = async (filter: ProductFilterInput, sort: ProductSortName, first: number) => {
    const ids: number[] = [];
    let cursor: string | null = null;
    for (;;) {
      const { edges, pageInfo } = await page({ first, after: cursor, filter, sort });
      ids.push(...edges.map((edge) => Number(edge.node.id)));
      if (!pageInfo.hasNextPage) return ids;
      cursor = pageInfo.endCursor;
    }
  };

  /** The ids the reference SQL returns for a filter and sort. */
  const reference = (client: pg.Client, where: string, values: unknown[], sort: ProductSortName) =>
    client
      .query(`SELECT id::int FROM catalog.products WHERE ${where} ORDER BY ${REFERENCE_ORDER[sort]}`, values)
      .then((result) => result.rows.map((row) => row.id as number));

  it('walks every sort page by page exactly like ORDER BY … id, ties and unpriced products included', async () => {
    await withClient(databaseUrl, async (client) => {
      for (const sort of SORTS) {
        const expected = await reference(client, 'category = $1', ['Hats'], sort);
        assert.deepEqual(await walk({ category: 'Hats' }, sort, 100), expected, `Hats by ${sort}`);
      }
      const { rows } = await client.query(
        `SELECT count(*)::int AS ties FROM (SELECT default_price FROM catalog.products WHERE category = 'Hats' GROUP BY 1 HAVING count(*) > 1) tied`,
      );
      assert.ok(rows[0].ties > 100, 'many prices are shared, so the id tiebreak is exercised');
      const unpriced = await client.query(
        `SELECT count(*)::int AS n FROM catalog.products WHERE category = 'Hats' AND default_price IS NULL`,
      );
      assert.ok(unpriced.rows[0].n > 10, 'unpriced products are paged too');
    });
  });

  it('walks filtered lists (price range, search, both with a category) under several sorts', async () => {
    await withClient(databaseUrl, async (client) => {
      const cases: [ProductFilterInput, string, unknown[], ProductSortName[]][] = [
        [{ minPrice: '100', maxPrice: '104.50' }, 'default_price BETWEEN 100 AND 104.50', [], ['PRICE_DESC', 'NAME_ASC', 'NEWEST']],
        [
          { category: 'Kicks', search: 'slim tee' },
          `category = 'Kicks' AND name ILIKE 'slim tee%'`,
          [],
          ['PRICE_ASC', 'NAME_DESC', 'ID_ASC'],
        ],
        [{ search: 'no99' }, `name ~ ' No99[0-9]?$'`, [], ['PRICE_ASC', 'OLDEST']],
      ];
      for (const [filter, where, values, sorts] of cases) {
        for (const sort of sorts) {
          const expected = await reference(client, where, values, sort);
          assert.ok(expected.length > 30, `${where} matches enough rows to need pages`);
          assert.deepEqual(await walk(filter, sort, 7), expected, `${JSON.stringify(filter)} by ${sort}`);
        }
      }
    });
  });

  it('uses an index and never a sequential scan on products, for every filter × sort, on page 1 and deep', async () => {
    await withClient(databaseUrl, async (client) => {
      let plan = '';
      const explaining = new ProductListingRepository({
        query: async (sql: string, values: unknown[]) => {
          const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, values);
          plan = JSON.stringify(rows[0]['QUERY PLAN']);
          return [];
        },
      } as unknown as Database);
      const listing = new ProductListingRepository({
        query: async (sql: string, values: unknown[]) => (await client.query(sql, values)).rows,
      } as unknown as Database);
      for (const [name, input] of Object.entries(FILTERS)) {
        const filter = parseProductFilter(input, FILTER_NAMES);
        for (const sort of SORTS) {
          // The row 80% of the way through the list: where a deep page starts.
          const rows = await listing.list(filter, PRODUCT_SORTS[sort], undefined, PRODUCTS);
          const deep = rows[Math.floor(rows.length * 0.8)]!;
          // Custom plans (the values known) and the generic plan a prepared statement settles on.
          for (const mode of ['force_custom_plan', 'force_generic_plan']) {
            await client.query(`SET plan_cache_mode = ${mode}`);
            for (const position of [undefined, { key: deep.sort_key, id: Number(deep.id) }]) {
              await explaining.list(filter, PRODUCT_SORTS[sort], position, 21);
              const where = `${name} by ${sort} ${position ? 'deep' : 'page 1'} (${mode})`;
              assert.doesNotMatch(plan, /"Seq Scan"/, `${where}: ${plan}`);
              assert.match(plan, /"Index (Only )?Scan"|"Bitmap Index Scan"/, `${where}: ${plan}`);
            }
          }
        }
      }
    });
  });

  it('keeps the id-order cursors issued before sorts existed', async () => {
    const legacy = Buffer.from('product:100').toString('base64url');
    const { edges } = await page({ first: 2, after: legacy });
    assert.deepEqual(
      edges.map((edge) => edge.node.id),
      ['101', '102'],
    );
    assert.deepEqual(decodeCursor(edges[0]!.cursor, 'ID_ASC'), { key: null, id: 101 });
  });

  it('looks many products up by id in one call: order kept, null for a missing id', async () => {
    const response = await graphql(app, '{ productsByIds(ids: ["5", "999999", "3", "5"]) { id } }');
    assert.deepEqual(response.json(), { data: { productsByIds: [{ id: '5' }, null, { id: '3' }, { id: '5' }] } });
  });

  it('answers a clear 400 naming the problem for bad filter, sort, cursor and size inputs', async () => {
    const priceCursor = (await page({ first: 1, sort: 'PRICE_ASC' })).pageInfo.endCursor;
    const tampered = Buffer.from(JSON.stringify(['PRICE_ASC', '12,5', 3])).toString('base64url');
    const ids = Array.from({ length: 101 }, (_, index) => String(index + 1));
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [CONNECTION, { sort: 'CHEAPEST' }, /Variable "\$sort" got invalid value "CHEAPEST"; Expected type ProductSort/],
      [CONNECTION, { filter: { minPrice: '50', maxPrice: '20' } }, /filter.minPrice \(50\) is greater than filter.maxPrice \(20\)/],
      [CONNECTION, { filter: { minPrice: '-1' } }, /filter.minPrice must not be negative/],
      [CONNECTION, { filter: { maxPrice: 'cheap' } }, /filter.maxPrice must be a decimal price/],
      [CONNECTION, { filter: { search: 'x'.repeat(101) } }, /filter.search is longer than 100 characters/],
      [CONNECTION, { filter: { search: '%%' } }, /filter.search must contain a letter or digit/],
      [CONNECTION, { first: 101 }, /first must be an integer from 1 to 100/],
      [CONNECTION, { after: priceCursor, sort: 'NAME_ASC' }, /after: the cursor belongs to a list sorted by PRICE_ASC, not NAME_ASC/],
      [CONNECTION, { after: tampered, sort: 'PRICE_ASC' }, /after: .* is not a cursor this API returned/],
      ['query Ids($ids: [ID!]!) { productsByIds(ids: $ids) { id } }', { ids }, /ids: at most 100 ids per call, got 101/],
      ['{ product(id: 1) { styles(first: 0) { id } } }', {}, /first must be an integer from 1 to 100/],
    ];
    for (const [query, variables, message] of cases) {
      const response = await graphql(app, query, variables);
      assert.equal(response.statusCode, 400, `${JSON.stringify(variables)}: ${response.body}`);
      assert.match(response.json().errors[0].message, message);
    }
  });

  it('costs filters, id lists and nested first: (GRAPHQL_MAX_COMPLEXITY)', async () => {
    const costOf = async (query: string) => {
      const response = await graphql(app, query);
      if (response.statusCode === 200) return 'accepted';
      assert.equal(response.statusCode, 400, response.body);
      return Number(/query complexity (\d+) exceeds/.exec(response.json().errors[0].message)?.[1]);
    };
    const plain = await costOf('{ productsConnection(first: 100) { nodes { id related { id name } } } }');
    const searched = await costOf('{ productsConnection(first: 100, filter: { search: "camo" }) { nodes { id related { id name } } } }');
    assert.equal(typeof plain, 'number');
    assert.equal(searched, (plain as number) + SEARCH_COST);
    const ids = JSON.stringify(Array.from({ length: 100 }, (_, index) => String(index + 1)));
    assert.equal(typeof (await costOf(`{ productsByIds(ids: ${ids}) { styles { photos { url } skus { id } } } }`)), 'number');
    // 24 product cards, each with one photo of the first style of its first four related products.
    const card = `{ productsByIds(ids: ${JSON.stringify(JSON.parse(ids).slice(0, 24))}) { id name defaultPrice styles(first: 1) { photos(first: 1) { thumbnailUrl } }
      related(first: 4) { id name styles(first: 1) { photos(first: 1) { thumbnailUrl } } } } }`;
    assert.equal(await costOf(card), 'accepted');
  });

  it('reads only the product columns a page selects (through fragments and aliases) and answers them like productsByIds', async () => {
    const FIELDS = 'id campus name slogan description category defaultPrice createdAt updatedAt';
    const pageOf = async (selection: string, fragments = '') => {
      const query = `{ productsConnection(first: 5, filter: { category: "Hats" }, sort: PRICE_ASC) { ${selection} pageInfo { endCursor } } } ${fragments}`;
      let data: { nodes?: Record<string, string>[]; edges?: { node: Record<string, string> }[] } = {};
      const [sql] = await countStatements(app, async () => {
        const response = await graphql(app, query);
        assert.equal(response.statusCode, 200, response.body);
        data = response.json().data.productsConnection;
      });
      return { sql: sql!.slice(0, sql!.indexOf(' FROM ')), data };
    };

    const card = await pageOf('nodes { id name defaultPrice }');
    assert.doesNotMatch(card.sql, /description|created_at|slogan/, 'a card page reads just its columns');
    const viaFragment = await pageOf('edges { node { ...Card } }', 'fragment Card on Product { title: name createdAt }');
    assert.match(viaFragment.sql, /\bname\b.*created_at/, 'fields under a fragment and an alias are read');
    assert.doesNotMatch(viaFragment.sql, /description/);

    const whole = await pageOf(`nodes { ${FIELDS} }`);
    const ids = whole.data.nodes!.map((node) => node.id);
    const byIds = await graphql(app, `query ($ids: [ID!]!) { productsByIds(ids: $ids) { ${FIELDS} } }`, { ids });
    assert.deepEqual(whole.data.nodes, byIds.json().data.productsByIds);
    assert.deepEqual(
      card.data.nodes,
      whole.data.nodes!.map(({ id, name, defaultPrice }) => ({ id, name, defaultPrice })),
    );
    assert.deepEqual(
      viaFragment.data.edges,
      whole.data.nodes!.map(({ name, createdAt }) => ({ node: { title: name, createdAt } })),
    );
  });

  it('answers nested first: with the first items only, and loads only the related products asked for', async () => {
    await withClient(databaseUrl, async (client) => {
      await client.query(`INSERT INTO catalog.styles (id, product_id, name) VALUES (1, 10, 'Red'), (2, 10, 'Blue'), (3, 11, 'Green')`);
      await client.query(`INSERT INTO catalog.photos (style_id, url) VALUES (1, 'r1'), (1, 'r2'), (2, 'b1'), (3, 'g1'), (3, 'g2')`);
      await client.query(`INSERT INTO catalog.related (product_id, related_product_id) VALUES (12, 10), (12, 11), (12, 13)`);
    });
    const query =
      '{ product(id: 12) { related(first: 2) { id styles(first: 1) { name photos(first: 1) { url } } } relatedIds(first: 1) } }';
    const statements = await countStatements(app, async () => {
      const response = await graphql(app, query);
      assert.deepEqual(response.json(), {
        data: {
          product: {
            related: [
              { id: '10', styles: [{ name: 'Red', photos: [{ url: 'r1' }] }] },
              { id: '11', styles: [{ name: 'Green', photos: [{ url: 'g1' }] }] },
            ],
            relatedIds: ['10'],
          },
        },
      });
    });
    assert.equal(statements.length, 2, 'the product, then its first two related products in one statement');
  });

  it('evicts cached filtered and sorted lists when a product moves into, within or out of them', async () => {
    const cached = await startGateway(databaseUrl);
    try {
      const cheapestHats = async () => {
        const response = await graphql(cached, CONNECTION, { first: 3, filter: { category: 'Hats', maxPrice: '6' }, sort: 'PRICE_ASC' });
        return (response.json().data.productsConnection.edges as { node: { id: string } }[]).map((edge) => Number(edge.node.id));
      };
      const before = await cheapestHats();
      assert.equal((await cheapestHats()).join(), before.join(), 'answered from the cache');
      const outsider = await withClient(databaseUrl, async (client) => {
        const { rows } = await client.query(`SELECT id::int FROM catalog.products WHERE category <> 'Hats' ORDER BY id DESC LIMIT 1`);
        return rows[0].id as number;
      });
      const moved = await cached.inject({
        method: 'PUT',
        url: `/products/${outsider}`,
        headers: authorized,
        payload: { category: 'Hats', default_price: '0.50' },
      });
      assert.equal(moved.statusCode, 200, moved.body);
      assert.deepEqual(await cheapestHats(), [outsider, ...before.slice(0, 2)]);
    } finally {
      await cached.close();
    }
  });

  it('filters and sorts the REST list with optional parameters; requests without them keep their legacy answer', async () => {
    const ids = async (url: string) => {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, response.body);
      return (response.json() as { id: number }[]).map((product) => product.id);
    };
    const legacy = await app.inject({ method: 'GET', url: '/products?page=2&count=3' });
    assert.equal((await app.inject({ method: 'GET', url: '/products?page=2&count=3&sort=id_asc' })).body, legacy.body);
    await withClient(databaseUrl, async (client) => {
      const hats = await reference(client, 'category = $1', ['Hats'], 'PRICE_DESC');
      assert.deepEqual(await ids('/products?category=Hats&sort=price_desc&count=5'), hats.slice(0, 5));
      const where = `category = 'Kicks' AND default_price BETWEEN 100 AND 300 AND name ILIKE 'camo%'`;
      const kicks = await reference(client, where, [], 'NAME_ASC');
      const url = '/products?category=Kicks&min_price=100&max_price=300&q=Camo&sort=name_asc&page=3&count=4';
      assert.deepEqual(await ids(url), kicks.slice(8, 12));
    });
    const errors: [string, RegExp][] = [
      ['/products?sort=cheapest', /sort must be equal to one of the allowed values/],
      ['/products?min_price=-1', /min_price must match pattern/],
      ['/products?min_price=9&max_price=2', /min_price \(9\) is greater than max_price \(2\)/],
      [`/products?q=${'x'.repeat(101)}`, /q must NOT have more than 100 characters/],
      ['/products?category=Hats&page=501&count=20', /page: a filtered or sorted list reaches 10000 products deep/],
    ];
    for (const [url, message] of errors) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.match(response.json().error, message, url);
    }
  });
});
