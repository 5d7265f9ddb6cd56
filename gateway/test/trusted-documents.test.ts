import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { countStatements, createFixtureDatabase, postGraphQL, startGateway, startGatewayCli } from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const PRODUCT_NAME = 'query ProductName($id: ID!) { product(id: $id) { id name } }';
const PRODUCT_SLOGAN = 'query ProductSlogan($id: ID!) { product(id: $id) { id slogan } }';
const QUERY_TYPE = 'query QueryType { __schema { queryType { name } } }';
const CAMO = { data: { product: { id: '1', name: 'Camo Onesie' } } };

/** What @apollo/generate-persisted-query-manifest writes: ids are the SHA-256 of each body. */
const APOLLO_MANIFEST = {
  format: 'apollo-persisted-query-manifest',
  version: 1,
  operations: [
    { id: sha256(PRODUCT_NAME), body: PRODUCT_NAME, name: 'ProductName', type: 'query' },
    { id: sha256(PRODUCT_SLOGAN), body: PRODUCT_SLOGAN, name: 'ProductSlogan', type: 'query' },
    { id: 'query-type', body: QUERY_TYPE, name: 'QueryType', type: 'query' },
  ],
};

/** What the Relay compiler's persistOutput writes: ids of its own (an MD5 by default). */
const RELAY_ID = '3f1c5a0d9e8b7c6a5f4e3d2c1b0a9f8e';
const RELAY_MANIFEST = { [RELAY_ID]: PRODUCT_NAME };

let directory: string;
let databaseUrl: string;
before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'trusted-documents-'));
  databaseUrl = await createFixtureDatabase();
});
after(() => rm(directory, { recursive: true, force: true }));

async function manifestFile(name: string, content: unknown): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('trusted documents from an Apollo persisted-query manifest', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(databaseUrl, { GRAPHQL_TRUSTED_DOCUMENTS: await manifestFile('apollo.json', APOLLO_MANIFEST) });
  });
  after(() => app.close());

  it("runs a manifest operation by Apollo Client's hash alone, by documentId, and by its exact text", async () => {
    const variables = { id: '1' };
    const requests = [
      { variables, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(PRODUCT_NAME) } } },
      { variables, documentId: `sha256:${sha256(PRODUCT_NAME)}` },
      { variables, doc_id: sha256(PRODUCT_NAME) },
      { variables, query: PRODUCT_NAME },
      { variables, query: PRODUCT_NAME, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(PRODUCT_NAME) } } },
    ];
    for (const request of requests) {
      const response = await postGraphQL(app, request);
      assert.equal(response.statusCode, 200, `${JSON.stringify(request)}: ${response.body}`);
      assert.deepEqual(response.json(), CAMO);
    }
  });

  it('runs a manifest operation named by documentId or doc_id over GET', async () => {
    for (const name of ['documentId', 'doc_id']) {
      const search = new URLSearchParams({ [name]: sha256(PRODUCT_NAME), variables: JSON.stringify({ id: '1' }) });
      const response = await app.inject({ method: 'GET', url: `/graphql?${search}` });
      assert.equal(response.statusCode, 200, `${name}: ${response.body}`);
      assert.deepEqual(response.json(), CAMO);
    }
  });

  it('runs introspection only as listed in the manifest', async () => {
    const listed = await postGraphQL(app, { documentId: 'query-type' });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(listed.json(), { data: { __schema: { queryType: { name: 'Query' } } } });
    const other = await postGraphQL(app, { query: '{ __schema { types { name } } }' });
    assert.equal(other.statusCode, 400);
    assert.equal(other.json().errors[0].extensions.code, 'PERSISTED_QUERY_NOT_IN_LIST');
  });

  it('answers every way of naming one operation from one response-cache entry', async () => {
    const variables = { id: '5' };
    const first = await postGraphQL(app, { variables, query: PRODUCT_SLOGAN });
    assert.equal(first.statusCode, 200, first.body);
    const statements = await countStatements(app, async () => {
      for (const request of [
        { variables, doc_id: sha256(PRODUCT_SLOGAN) },
        { variables, documentId: `sha256:${sha256(PRODUCT_SLOGAN)}` },
      ]) {
        assert.equal((await postGraphQL(app, request)).body, first.body);
      }
    });
    assert.deepEqual(statements, []);
  });

  it('refuses anything else with a 400 naming the problem: other text, unknown ids, introspection, ambiguous requests', async () => {
    const notListed = /not a trusted document: only the operations of the manifest \(GRAPHQL_TRUSTED_DOCUMENTS\) run/;
    const cases: Array<[unknown, RegExp, string?]> = [
      [{ query: '{ product(id: 1) { id name } }' }, notListed, 'PERSISTED_QUERY_NOT_IN_LIST'],
      [{ query: `${PRODUCT_NAME} ` }, notListed, 'PERSISTED_QUERY_NOT_IN_LIST'],
      [{ query: 'mutation { deleteProduct(id: 1) }' }, notListed, 'PERSISTED_QUERY_NOT_IN_LIST'],
      [{ documentId: 'abc' }, /operation abc is not a trusted document/, 'PERSISTED_QUERY_NOT_IN_LIST'],
      [
        { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ x }') } } },
        /is not a trusted document/,
        'PERSISTED_QUERY_NOT_IN_LIST',
      ],
      [{ doc_id: sha256(PRODUCT_NAME), query: PRODUCT_SLOGAN }, /the query text differs from trusted document/],
      [
        { doc_id: sha256(PRODUCT_NAME), documentId: sha256(PRODUCT_NAME) },
        /name the operation once: documentId and doc_id were sent together/,
      ],
      [{ doc_id: 'x'.repeat(10_000) }, /doc_id must be a string of 1 to 256 characters/],
      [{ documentId: 12 }, /documentId must be a string of 1 to 256 characters/],
      [{ extensions: { persistedQuery: { version: 2, sha256Hash: sha256(PRODUCT_NAME) } } }, /only version 1 is supported/],
      [{ extensions: 'nope' }, /extensions is not valid JSON/],
      [{ variables: { id: '1' } }, /send a trusted document id \(documentId, doc_id or extensions.persistedQuery\) or its query text/],
    ];
    for (const [body, message, code] of cases) {
      const response = await postGraphQL(app, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body).slice(0, 100)}: ${response.body.slice(0, 300)}`);
      const [error] = response.json().errors;
      assert.match(error.message, message);
      assert.equal(error.extensions.code, code ?? 'BAD_REQUEST');
    }
    assert.match(await scrapeMetrics(app), /catalog_graphql_persisted_queries_total\{result="refused"\} [1-9]/);
  });
});

describe("trusted documents from Relay's persisted_queries.json", () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(databaseUrl, { GRAPHQL_TRUSTED_DOCUMENTS: await manifestFile('relay.json', RELAY_MANIFEST) });
  });
  after(() => app.close());

  it("runs an operation by Relay's doc_id, by documentId and by text; refuses others", async () => {
    for (const request of [{ doc_id: RELAY_ID }, { documentId: RELAY_ID }, { query: PRODUCT_NAME }]) {
      const response = await postGraphQL(app, { ...request, variables: { id: '1' } });
      assert.equal(response.statusCode, 200, `${JSON.stringify(request)}: ${response.body}`);
      assert.deepEqual(response.json(), CAMO);
    }
    const other = await postGraphQL(app, { query: PRODUCT_SLOGAN, variables: { id: '1' } });
    assert.equal(other.statusCode, 400);
    assert.equal(other.json().errors[0].extensions.code, 'PERSISTED_QUERY_NOT_IN_LIST');
  });
});

describe('a bad trusted-documents manifest stops the start-up with an error naming the file and the problem', () => {
  const apollo = (operations: unknown[]) => ({ format: 'apollo-persisted-query-manifest', version: 1, operations });
  const cases: Array<[string, unknown, RegExp]> = [
    ['not-json.json', '{"format": ', /is not JSON: /],
    ['array.json', [PRODUCT_NAME], /is neither an Apollo persisted-query manifest .* nor a Relay persisted_queries.json/],
    [
      'format.json',
      { format: 'apollo-persisted-query-manifest', version: 2, operations: [] },
      /Apollo manifest at version: Invalid literal value, expected 1/,
    ],
    ['empty.json', apollo([]), /Apollo manifest at operations: lists no operations/],
    ['missing-body.json', apollo([{ id: 'a', name: 'A', type: 'query' }]), /Apollo manifest at operations.0.body: Required/],
    [
      'syntax.json',
      apollo([{ id: 'broken', body: '{ product(id: 1) { name }', name: 'Broken', type: 'query' }]),
      /operation "Broken" \(id broken\): Syntax Error: Expected Name, found <EOF>/,
    ],
    [
      'invalid.json',
      apollo([{ id: 'nope', body: '{ product(id: 1) { nope } }', name: 'Nope', type: 'query' }]),
      /operation "Nope" \(id nope\): Cannot query field "nope" on type "Product"/,
    ],
    [
      'duplicate.json',
      apollo([
        { id: 'same', body: PRODUCT_NAME, name: 'ProductName', type: 'query' },
        { id: 'same', body: PRODUCT_SLOGAN, name: 'ProductSlogan', type: 'query' },
      ]),
      /operation "ProductSlogan" \(id same\): the id is listed twice with different bodies/,
    ],
    ['relay-empty.json', {}, /Relay persisted_queries.json: lists no operations/],
    ['relay-value.json', { abc: 42 }, /Relay persisted_queries.json at abc: Expected string, received number/],
  ];

  it('for each kind of mistake', async () => {
    for (const [name, content, problem] of cases) {
      const path = await manifestFile(name, content);
      await assert.rejects(startGateway(databaseUrl, { GRAPHQL_TRUSTED_DOCUMENTS: path }), (error: Error) => {
        assert.match(error.message, new RegExp(`^GRAPHQL_TRUSTED_DOCUMENTS=${path}: unusable trusted-documents manifest`), name);
        assert.match(error.message, problem, name);
        return true;
      });
    }
    await assert.rejects(
      startGateway(databaseUrl, { GRAPHQL_TRUSTED_DOCUMENTS: join(directory, 'absent.json') }),
      /absent.json: .*cannot be read: ENOENT/s,
    );
  });

  it('from the command line: exit code 1 and the problem in the fatal log line', async () => {
    const path = await manifestFile('cli.json', { abc: 42 });
    const gateway = startGatewayCli([], { DATABASE_URL: databaseUrl, PORT: '0', GRAPHQL_TRUSTED_DOCUMENTS: path });
    assert.equal(await gateway.exited, 1, gateway.output);
    assert.match(gateway.output, /catalog-gateway failed to start/);
    assert.match(
      gateway.output,
      new RegExp(`GRAPHQL_TRUSTED_DOCUMENTS=${path}: unusable trusted-documents manifest:\\\\n  Relay persisted_queries.json at abc`),
    );
  });
});
