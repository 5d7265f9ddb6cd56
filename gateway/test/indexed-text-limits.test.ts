import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { PRODUCT_TEXT_MAX_LENGTH } from '@catalog/contract';
import { incompressibleText } from '../../scripts/test/incompressible-text.js';
import { authorized, createFixtureDatabase, graphql, startGateway, withClient } from './support/gateway.js';

const { name: NAME_MAX, category: CATEGORY_MAX } = PRODUCT_TEXT_MAX_LENGTH;
const CREATE = 'mutation Create($input: CreateProductInput!) { createProduct(input: $input) { id } }';
const UPDATE = 'mutation Update($id: ID!, $input: UpdateProductInput!) { updateProduct(id: $id, input: $input) { id } }';
const BY_NAME = `query ByName($category: String!) {
  productsConnection(first: 5, filter: { category: $category }, sort: NAME_ASC) { nodes { id name } }
}`;

/**
 * A product's name and category are keys of the storefront indexes, whose entries Postgres caps
 * in bytes. At their limits, in the worst case (incompressible 4-byte characters), they store and
 * list by the name sort; one character more is a 400 naming the field, never a database error.
 */
describe('product name and category at and over their limits', () => {
  let app: FastifyInstance;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createFixtureDatabase();
    app = await startGateway(databaseUrl);
  });
  after(() => app.close());

  const rest = (method: 'POST' | 'PUT', url: string, body: Record<string, unknown>) =>
    app.inject({ method, url, headers: { ...authorized, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const listedByName = async (category: string) => {
    const response = await app.inject({ method: 'GET', url: `/products?${new URLSearchParams({ category, sort: 'name_asc' })}` });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as Array<{ id: number; name: string }>).map(({ id, name }) => ({ id, name }));
  };
  const storedWithCategory = async (category: string) =>
    (await withClient(databaseUrl, (client) => client.query('SELECT id FROM catalog.products WHERE category = $1', [category]))).rowCount;

  it('REST: at the limits a product is created, renamed and listed by the name sort', async () => {
    const category = incompressibleText(CATEGORY_MAX, 'rest-category');
    const name = incompressibleText(NAME_MAX, 'rest-name');
    const created = await rest('POST', '/products', { name, category, default_price: '10.00' });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json() as { id: number };
    assert.deepEqual(await listedByName(category), [{ id, name }]);

    const renamed = incompressibleText(NAME_MAX, 'rest-renamed');
    const updated = await rest('PUT', `/products/${id}`, { name: renamed, category });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(await listedByName(category), [{ id, name: renamed }]);
  });

  it('REST: one character over a limit is a 400 naming the field and the limit; nothing is stored', async () => {
    const category = incompressibleText(CATEGORY_MAX + 1, 'rest-over-category');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: incompressibleText(NAME_MAX + 1, 'rest-over-name') }, new RegExp(`name must NOT have more than ${NAME_MAX} characters`)],
      [{ name: 'Over Category', category }, new RegExp(`category must NOT have more than ${CATEGORY_MAX} characters`)],
    ];
    for (const [body, message] of cases) {
      const response = await rest('POST', '/products', body);
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().error, message);
    }
    const renamed = await rest('PUT', '/products/1', { name: incompressibleText(NAME_MAX + 1, 'rest-over-rename') });
    assert.equal(renamed.statusCode, 400, renamed.body);
    assert.match(renamed.json().error, new RegExp(`name must NOT have more than ${NAME_MAX} characters`));
    assert.equal(await storedWithCategory(category), 0);
  });

  it('GraphQL: at the limits a product is created, renamed and listed by the name sort', async () => {
    const category = incompressibleText(CATEGORY_MAX, 'gql-category');
    const name = incompressibleText(NAME_MAX, 'gql-name');
    const created = await graphql(app, CREATE, { input: { name, category } }, authorized);
    assert.equal(created.statusCode, 200, created.body);
    assert.equal(created.json().errors, undefined, created.body);
    const { id } = created.json().data.createProduct as { id: string };
    const listed = async () => (await graphql(app, BY_NAME, { category })).json().data.productsConnection.nodes;
    assert.deepEqual(await listed(), [{ id, name }]);

    const renamed = incompressibleText(NAME_MAX, 'gql-renamed');
    const updated = await graphql(app, UPDATE, { id, input: { name: renamed } }, authorized);
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(await listed(), [{ id, name: renamed }]);
  });

  it('GraphQL: one character over a limit is a 400 naming the field and the limit', async () => {
    const category = incompressibleText(CATEGORY_MAX + 1, 'gql-over-category');
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        CREATE,
        { input: { name: incompressibleText(NAME_MAX + 1, 'gql-over-name') } },
        new RegExp(`name must NOT have more than ${NAME_MAX} characters`),
      ],
      [CREATE, { input: { name: 'Over Category', category } }, new RegExp(`category must NOT have more than ${CATEGORY_MAX} characters`)],
      [UPDATE, { id: '1', input: { category } }, new RegExp(`category must NOT have more than ${CATEGORY_MAX} characters`)],
    ];
    for (const [mutation, variables, message] of cases) {
      const response = await graphql(app, mutation, variables, authorized);
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().errors[0].message, message);
      assert.doesNotMatch(response.body, /index row size/, 'no Postgres message leaks');
    }
    assert.equal(await storedWithCategory(category), 0);
  });
});
