import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { getIntrospectionQuery } from 'graphql';
import { authorized, countStatements, createFixtureDatabase, startGateway, withClient } from './support/gateway.js';

/** A POST /graphql with every request field under the caller's control. */
function post(app: FastifyInstance, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

/** A query far over the cost limit: 100 products × their styles × photos and skus. */
const HEAVY = 'query Heavy { products(page: 1, count: 100) { id styles { id photos { url } skus { id size } } } }';

describe('GraphQL request fields as an attack surface', () => {
  let app: FastifyInstance;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createFixtureDatabase();
    app = await startGateway(databaseUrl);
  });
  after(() => app.close());

  it('refuses an operationName that names no operation with a 400, before costing is skipped or anything runs', async () => {
    const statements = await countStatements(app, async () => {
      const response = await post(app, { query: HEAVY, operationName: 'NotThere' });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().errors[0].message, /Unknown operation named "NotThere"/);
    });
    assert.deepEqual(statements, [], 'nothing reached Postgres');
    // Named correctly, the same document is costed and refused.
    const named = await post(app, { query: HEAVY, operationName: 'Heavy' });
    assert.equal(named.statusCode, 400);
    assert.match(named.json().errors[0].message, /complexity \d+ exceeds the limit/);
  });

  it('never runs a mutation sent under an unknown operationName', async () => {
    const mutation =
      'mutation Create { createProduct(input: { name: "Smuggled", slogan: "s", description: "d", category: "c", defaultPrice: "1.00" }) { id } }';
    const response = await post(app, { query: mutation, operationName: 'Innocent' }, authorized);
    assert.equal(response.statusCode, 400, response.body);
    const smuggled = await withClient(databaseUrl, (client) => client.query(`SELECT id FROM catalog.products WHERE name = 'Smuggled'`));
    assert.equal(smuggled.rowCount, 0, 'the mutation was not committed');
  });

  it('costs the operation that runs: a cheap and a heavy operation in one document', async () => {
    const document = `query Cheap { product(id: 1) { id } } ${HEAVY}`;
    assert.equal((await post(app, { query: document, operationName: 'Cheap' })).statusCode, 200);
    assert.equal((await post(app, { query: document, operationName: 'Heavy' })).statusCode, 400);
    const unnamed = await post(app, { query: document });
    assert.equal(unnamed.statusCode, 400, unnamed.body);
    assert.match(unnamed.json().errors[0].message, /operationName/);
  });

  it('costs introspection like any other field: hundreds of aliased __schema fields are refused before they run', async () => {
    const aliases = Array.from({ length: 300 }, (_, index) => `s${index}: __schema { types { name fields { name type { name } } } }`);
    const response = await post(app, { query: `{ ${aliases.join(' ')} }` });
    assert.equal(response.statusCode, 400, response.body.slice(0, 300));
    assert.ok(response.body.length < 1_000, 'the answer is an error, not megabytes of schema');
    assert.match(response.json().errors[0].message, /complexity \d+ exceeds the limit|at most one __schema/);
  });

  it('depth-limits introspection (graphql-js MaxIntrospectionDepthRule): deeper than the standard introspection query is refused', async () => {
    let selection = 'name';
    for (let level = 0; level < 12; level += 1) selection = `fields { type { ${selection} } }`;
    const response = await post(app, { query: `{ __schema { types { ${selection} } } }` });
    assert.equal(response.statusCode, 400, response.body.slice(0, 300));
    assert.match(response.json().errors[0].message, /depth/i, response.body.slice(0, 300));
    // The query tools send still works.
    const standard = await post(app, { query: getIntrospectionQuery() });
    assert.equal(standard.statusCode, 200, standard.body.slice(0, 300));
  });
});

describe('GRAPHQL_INTROSPECTION=false', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase(), { GRAPHQL_INTROSPECTION: 'false' });
  });
  after(() => app.close());

  it('refuses introspection with a clear 400 and still answers __typename and queries', async () => {
    // Sent twice: the second time the document comes from the document cache, which must not pass it as valid.
    for (let round = 0; round < 2; round += 1) {
      const response = await post(app, { query: '{ __schema { queryType { name } } }' });
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().errors[0].message, /introspection/i);
    }
    const typed = await post(app, { query: '{ __typename product(id: 1) { id } }' });
    assert.deepEqual(typed.json(), { data: { __typename: 'Query', product: { id: '1' } } });
  });
});
