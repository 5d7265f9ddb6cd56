import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { MAX_OPERATION_NAME_LABELS } from '../src/graphql/operation-metrics.js';
import { createSchema } from '../src/graphql/schema.js';
import { authorized, countStatements, createFixtureDatabase, graphql, postGraphQL, startGateway, withClient } from './support/gateway.js';
import { PRODUCT_PAGE_QUERY } from '../../scripts/test/product-page.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const schema = createSchema();

describe('GraphQL over the fixture catalog', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase());
  });
  after(() => app.close());

  it('answers the product page query with the whole expected body', async () => {
    const response = await graphql(app, PRODUCT_PAGE_QUERY, { id: '1' });
    assert.equal(response.statusCode, 200);
    const expected = JSON.parse(await readFile(new URL('fixtures/graphql-product-page-1.json', import.meta.url), 'utf8'));
    assert.equal(response.body, `${JSON.stringify(expected)}\n`); // Apollo ends bodies with a newline
  });

  it('answers introspection and __typename like graphql-js (execution is compiled by graphql-jit)', async () => {
    const introspection = await graphql(app, '{ __schema { queryType { name } types { name } } __type(name: "Sku") { fields { name } } }');
    assert.equal(introspection.statusCode, 200, introspection.body);
    const { __schema, __type } = introspection.json().data;
    assert.equal(__schema.queryType.name, 'Query');
    assert.deepEqual(
      __schema.types,
      Object.keys(schema.getTypeMap()).map((name) => ({ name })),
    );
    assert.deepEqual(__type.fields, [{ name: 'id' }, { name: 'size' }, { name: 'quantity' }]);
    // The full introspection query tools send is costed (its lists count once) and stays under the limit.
    const full = await graphql(app, getIntrospectionQuery());
    assert.equal(full.statusCode, 200, full.body);
    assert.equal(printSchema(buildClientSchema(full.json().data)), printSchema(schema));
    const typed = await graphql(app, '{ __typename product(id: 1) { __typename styles { __typename } } }');
    assert.deepEqual(typed.json(), {
      data: { __typename: 'Query', product: { __typename: 'Product', styles: [{ __typename: 'Style' }, { __typename: 'Style' }] } },
    });
  });

  it('returns null for an unknown product', async () => {
    const response = await graphql(app, '{ product(id: 4) { id name } }');
    assert.deepEqual(response.json(), { data: { product: null } });
  });

  it('pages products like the REST list', async () => {
    const response = await graphql(app, '{ products(page: 2, count: 2) { id name } }');
    assert.deepEqual(response.json(), {
      data: {
        products: [
          { id: '3', name: 'Morning Joggers' },
          { id: '5', name: 'Heir Force Ones' },
        ],
      },
    });
  });

  it('walks the cursor connection to the end with opaque cursors', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const response = await graphql(
        app,
        'query Walk($after: String) { productsConnection(first: 3, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage endCursor } } }',
        { after },
      );
      const connection = response.json().data.productsConnection;
      pages += 1;
      seen.push(...connection.edges.map((edge: { node: { id: string } }) => edge.node.id));
      assert.equal(connection.pageInfo.hasPreviousPage, after !== null);
      for (const edge of connection.edges) assert.doesNotMatch(edge.cursor, /^\d+$/, 'cursors are opaque');
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    assert.deepEqual(seen, ['1', '2', '3', '5']);
    assert.equal(pages, 2);
  });

  it('rejects bad arguments with 400 naming them', async () => {
    const cases = [
      ['{ product(id: "abc") { id } }', /id must be a positive integer/],
      ['{ product(id: "-3") { id } }', /id must be a positive integer/],
      ['{ product(id: "99999999999999999999") { id } }', /id must be a positive integer/],
      ['{ products(count: 101) { id } }', /count must be an integer from 1 to 100/],
      ['{ products(page: 0) { id } }', /page must be an integer from 1/],
      ['{ productsConnection(first: 0) { nodes { id } } }', /first must be an integer from 1 to 100/],
      ['{ productsConnection(after: "bm90LWEtY3Vyc29y") { nodes { id } } }', /after: .* is not a cursor/],
      ['{ product(id: 1) { nope } }', /Cannot query field "nope"/],
      ['{ product(id: 1) { id ', /Syntax Error/],
    ] as const;
    for (const [query, message] of cases) {
      const response = await graphql(app, query);
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.match(response.json().errors[0].message, message, query);
    }
  });

  it('runs an operation once when its errors are answered by Apollo (the route runs it, Apollo formats the result)', async () => {
    const query = '{ product(id: 1) { id } productsConnection(after: "bm90LWEtY3Vyc29y") { nodes { id } } }';
    let response: Awaited<ReturnType<typeof graphql>> | undefined;
    const statements = await countStatements(app, async () => {
      response = await graphql(app, query);
    });
    assert.equal(response!.statusCode, 400, response!.body);
    assert.deepEqual(response!.json().data, null);
    assert.match(response!.json().errors[0].message, /after: .* is not a cursor/);
    assert.equal(statements.length, 1, statements.join('\n'));
  });

  it('rejects queries over the depth and complexity limits with 400 before touching the database', async () => {
    const deep = '{ product(id: 1) { related { related { related { related { related { related { related { id } } } } } } } } }';
    const costly = '{ products(count: 100) { styles { photos { url } skus { id size } } } }';
    const statements = await countStatements(app, async () => {
      const tooDeep = await graphql(app, deep);
      assert.equal(tooDeep.statusCode, 400);
      assert.match(tooDeep.json().errors[0].message, /depth limit of 8 exceeded, found 9/);

      const tooCostly = await graphql(app, costly);
      assert.equal(tooCostly.statusCode, 400);
      assert.match(tooCostly.json().errors[0].message, /query complexity \d+ exceeds the limit of 1000/);
    });
    assert.deepEqual(statements, []);
  });

  it('costs one document afresh for each page size or @include condition it is sent with', async () => {
    const paged =
      'query Paged($count: Int!, $withSkus: Boolean!) { products(count: $count) { styles { photos { url } skus @include(if: $withSkus) { id size } } } }';
    const cases = [
      [{ count: 2, withSkus: true }, 200],
      [{ count: 20, withSkus: true }, 400],
      [{ count: 20, withSkus: false }, 200],
      [{ count: 2, withSkus: true }, 200],
      [{ count: 20, withSkus: true }, 400],
    ] as const;
    for (const [variables, status] of cases) {
      const response = await graphql(app, paged, variables);
      assert.equal(response.statusCode, status, `${JSON.stringify(variables)}: ${response.body}`);
      if (status === 400) assert.match(response.json().errors[0].message, /query complexity \d+ exceeds the limit of 1000/);
    }
  });

  it('refuses mutations without the bearer token (401) and runs them with it', async () => {
    const create = 'mutation { createProduct(input: { name: "Sky Hat", defaultPrice: "12.5" }) { id name defaultPrice } }';
    const refused = await graphql(app, create);
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().errors[0].extensions.code, 'UNAUTHENTICATED');
    const wrongToken = await graphql(app, create, undefined, { authorization: 'Bearer not-the-token' });
    assert.equal(wrongToken.statusCode, 401);

    const created = (await graphql(app, create, undefined, authorized)).json().data.createProduct;
    assert.deepEqual({ ...created, id: undefined }, { id: undefined, name: 'Sky Hat', defaultPrice: '12.50' });

    const updated = await graphql(
      app,
      'mutation Rename($id: ID!) { updateProduct(id: $id, input: { slogan: "Top it off" }) { id slogan createdAt updatedAt } }',
      { id: created.id },
      authorized,
    );
    const product = updated.json().data.updateProduct;
    assert.equal(product.slogan, 'Top it off');
    assert.ok(product.updatedAt >= product.createdAt);

    const badPrice = await graphql(
      app,
      'mutation { updateProduct(id: 1, input: { defaultPrice: "cheap" }) { id } }',
      undefined,
      authorized,
    );
    assert.equal(badPrice.statusCode, 400);
    assert.match(badPrice.json().errors[0].message, /defaultPrice/);

    const deleted = await graphql(app, `mutation { deleteProduct(id: ${created.id}) }`, undefined, authorized);
    assert.deepEqual(deleted.json(), { data: { deleteProduct: true } });
    const again = await graphql(app, `mutation { deleteProduct(id: ${created.id}) }`, undefined, authorized);
    assert.deepEqual(again.json(), { data: { deleteProduct: false } });
    const missing = await graphql(app, 'mutation { updateProduct(id: 4, input: { name: "x" }) { id } }', undefined, authorized);
    assert.deepEqual(missing.json(), { data: { updateProduct: null } });
  });

  it('parses each document once: the route, the operation guard, the cost check and the executor share it', async () => {
    const parses = async () => {
      const metrics = await scrapeMetrics(app);
      return Number(/^catalog_graphql_document_parses_total (\d+)$/m.exec(metrics)?.[1]);
    };
    const before = await parses();
    assert.ok(Number.isInteger(before), 'the parse counter is exposed');
    // A document never sent before, run (cache misses) with three different variables.
    const page = 'query ParseOnce($id: ID!) { product(id: $id) { id name styles { id } } }';
    for (const id of ['1', '2', '3']) assert.equal((await graphql(app, page, { id })).statusCode, 200);
    assert.equal(await parses(), before + 1, 'one parse for three requests: Apollo was handed the same document');
    // A mutation (never cached) goes through Apollo every time, still on the one parsed document.
    const rename = 'mutation ParseOnceRename { updateProduct(id: 1, input: { slogan: "Parsed once" }) { id } }';
    for (let round = 0; round < 2; round += 1) assert.equal((await graphql(app, rename, undefined, authorized)).statusCode, 200);
    assert.equal(await parses(), before + 2);
  });

  it('counts operations by name, type and outcome in /metrics', async () => {
    await graphql(app, 'query Named { product(id: 2) { id } }');
    await graphql(app, 'query Named { product(id: 2) { id } }'); // cache hit, still counted
    const metrics = await scrapeMetrics(app);
    assert.match(metrics, /catalog_graphql_operations_total\{operation_name="Named",operation_type="query",outcome="success"\} 2/);
    assert.match(metrics, /catalog_graphql_operations_total\{operation_name="anonymous",operation_type="mutation",outcome="error"\} \d+/);
    assert.match(metrics, /catalog_graphql_operation_duration_seconds_bucket\{le="0.001",operation_name="Named",operation_type="query"\}/);
    assert.match(metrics, /catalog_http_requests_total\{method="POST",route="\/graphql",status_code="200"\} \d+/);
  });

  // Operation names are the client's: a label per name would let any client grow the gateway's
  // memory and every Prometheus scrape without bound.
  it('keeps the operation-name label bounded whatever names clients send', async () => {
    const seriesOf = (metrics: string) => metrics.split('\n').filter((line) => line.startsWith('catalog_graphql_operations_total{'));
    // A name the document does not have is refused, and its text is never a label.
    const mismatched = await postGraphQL(app, { query: 'query Real { product(id: 1) { id } }', operationName: 'Junk<script>' });
    assert.equal(mismatched.statusCode, 400);
    for (let index = 0; index < MAX_OPERATION_NAME_LABELS + 50; index += 1) {
      assert.equal((await graphql(app, `query Flood${index} { product(id: 1) { id } }`)).statusCode, 200);
    }
    const series = seriesOf(await scrapeMetrics(app));
    assert.doesNotMatch(series.join('\n'), /Junk/);
    assert.ok(
      series.some((line) => line.includes('operation_name="Flood0"')),
      'names seen first keep their own series',
    );
    const other = /operation_name="other",operation_type="query",outcome="success"\} (\d+)/.exec(series.join('\n'));
    assert.ok(other && Number(other[1]) >= 50, `names past the bound are counted as "other": ${other?.[0]}`);
    const names = new Set(series.map((line) => /operation_name="([^"]*)"/.exec(line)![1]));
    assert.ok(names.size <= MAX_OPERATION_NAME_LABELS + 3, `${names.size} operation names labelled`);
  });
});

describe('GraphQL when something unexpected fails', () => {
  let app: FastifyInstance;
  before(async () => {
    const databaseUrl = await createFixtureDatabase();
    // A column the gateway does not expect: its features query fails inside Postgres (not an outage).
    await withClient(databaseUrl, (client) => client.query('ALTER TABLE catalog.features RENAME COLUMN feature TO feature_moved'));
    app = await startGateway(databaseUrl);
  });
  after(() => app.close());

  it('answers with a generic message and code, never the internal error (as REST answers a 500)', async () => {
    const response = await graphql(app, 'query Features { product(id: 1) { id features { feature } } }');
    const body = response.json();
    assert.equal(body.errors.length, 1);
    assert.equal(body.errors[0].message, 'internal server error');
    assert.equal(body.errors[0].extensions.code, 'INTERNAL_SERVER_ERROR');
    assert.equal(body.errors[0].path[0], 'product');
    assert.doesNotMatch(response.body, /feature_moved|does not exist|catalog\./);
  });

  it('neither caches nor counts as a success a query answered 200 with errors', async () => {
    const query = 'query Broken { product(id: 2) { id features { feature } } }';
    const first = await graphql(app, query);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.json().errors.length, 1);
    assert.equal(first.headers['cache-control'], 'no-store');
    assert.equal(first.headers.etag, undefined);
    // Not answered from the cache: the failing statement runs again.
    const statements = await countStatements(app, () => graphql(app, query));
    assert.ok(statements.length > 0);
    const metrics = await scrapeMetrics(app);
    assert.match(metrics, /catalog_graphql_operations_total\{operation_name="Broken",operation_type="query",outcome="error"\} 2/);
  });
});
