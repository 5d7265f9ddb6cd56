import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { GraphQLContext } from '../src/graphql/context.js';
import { createFixtureDatabase, eventually, postGraphQL, WRITE_TOKEN } from './support/gateway.js';

/** What a user's plugin saw of one operation. */
interface Seen {
  query: string | undefined;
  /** Apollo's own mark of an answer from a response cache. */
  cacheHit: boolean;
  executed: boolean;
  errors: string[];
  sent: boolean;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const PRODUCT_NAME = 'query ProductName($id: ID!) { product(id: $id) { id name } }';
const PRODUCT_SLOGAN = 'query ProductSlogan($id: ID!) { product(id: $id) { id slogan } }';
const PRODUCT_PRICE = 'query ProductPrice($id: ID!) { product(id: $id) { id defaultPrice } }';

describe('an Apollo plugin registered by the user (AppDependencies.graphqlPlugins)', () => {
  let app: FastifyInstance;
  let base: string;
  /** GETs of /graphql that reached Fastify (the front door answers cache hits before it). */
  let routedGets = 0;
  const seen: Seen[] = [];
  const plugin: ApolloServerPlugin<GraphQLContext> = {
    async requestDidStart({ request }) {
      const operation: Seen = { query: request.query, cacheHit: false, executed: false, errors: [], sent: false };
      seen.push(operation);
      return {
        async executionDidStart() {
          operation.executed = true;
        },
        async didEncounterErrors({ errors }) {
          operation.errors.push(...errors.map((error) => error.message));
        },
        async willSendResponse({ metrics }) {
          operation.cacheHit = metrics.responseCacheHit === true;
          operation.sent = true;
        },
      };
    },
  };
  /** What the plugin saw of the operations started since `from`, once every one has been sent. */
  const seenSince = async (from: number, count: number): Promise<Seen[]> => {
    await eventually(
      `the plugin saw ${count} operations`,
      async () => seen.length - from >= count && seen.slice(from).every((each) => each.sent),
    );
    return seen.slice(from);
  };

  before(async () => {
    const config = loadConfig({ DATABASE_URL: await createFixtureDatabase(), LOG_LEVEL: 'silent', WRITE_TOKEN, METRICS_PORT: '0' });
    app = await buildApp(config, { graphqlPlugins: [plugin] });
    app.addHook('onRequest', async (request) => {
      if (request.method === 'GET' && request.url.startsWith('/graphql?')) routedGets++;
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  after(() => app.close());

  const get = (query: string, variables: Record<string, unknown>) =>
    fetch(`${base}/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`);

  it('sees a POST executed, then answered from the response cache', async () => {
    const from = seen.length;
    const first = await postGraphQL(app, { query: PRODUCT_NAME, variables: { id: '1' } });
    const second = await postGraphQL(app, { query: PRODUCT_NAME, variables: { id: '1' } });
    assert.equal(second.body, first.body);
    assert.deepEqual(await seenSince(from, 2), [
      { query: PRODUCT_NAME, cacheHit: false, executed: true, errors: [], sent: true },
      { query: PRODUCT_NAME, cacheHit: true, executed: false, errors: [], sent: true },
    ]);
  });

  it('sees a GET executed, then answered from the cache before any route (over a socket)', async () => {
    const from = seen.length;
    const routedBefore = routedGets;
    const first = await get(PRODUCT_SLOGAN, { id: '2' });
    const second = await get(PRODUCT_SLOGAN, { id: '2' });
    assert.equal(await second.text(), await first.text());
    assert.equal(second.headers.get('etag'), first.headers.get('etag'));
    assert.equal(routedGets - routedBefore, 1, 'the repeat was answered before any route');
    assert.deepEqual(await seenSince(from, 2), [
      { query: PRODUCT_SLOGAN, cacheHit: false, executed: true, errors: [], sent: true },
      { query: PRODUCT_SLOGAN, cacheHit: true, executed: false, errors: [], sent: true },
    ]);
  });

  it('sees operations with errors: over POST and GET, before and during execution', async () => {
    const from = seen.length;
    assert.equal((await postGraphQL(app, { query: '{ product(id: 1) { id ' })).statusCode, 400);
    assert.equal((await postGraphQL(app, { query: PRODUCT_NAME, variables: {} })).statusCode, 400);
    assert.equal((await get('{ product(id: "abc") { id } }', {})).status, 400);
    const operations = await seenSince(from, 3);
    // A syntax error stops before execution; variables are coerced by the executor (Apollo leaves
    // that to a gateway's), and a resolver refuses a bad id during execution.
    assert.deepEqual(
      operations.map(({ executed, errors, cacheHit }) => ({ executed, errored: errors.length > 0, cacheHit })),
      [
        { executed: false, errored: true, cacheHit: false },
        { executed: true, errored: true, cacheHit: false },
        { executed: true, errored: true, cacheHit: false },
      ],
    );
  });

  it('sees automatic persisted queries: registered with their text, then run and answered by hash', async () => {
    const from = seen.length;
    const persisted = { persistedQuery: { version: 1, sha256Hash: sha256(PRODUCT_PRICE) } };
    const registered = await postGraphQL(app, { query: PRODUCT_PRICE, variables: { id: '3' }, extensions: persisted });
    assert.equal(registered.statusCode, 200);
    const byHash = await postGraphQL(app, { variables: { id: '3' }, extensions: persisted });
    assert.equal(byHash.body, registered.body);
    const byHashUncached = await postGraphQL(app, { variables: { id: '1' }, extensions: persisted });
    assert.equal(byHashUncached.statusCode, 200);
    // The plugins get the query text the hash names, as Apollo's own APQ support hands it on.
    assert.deepEqual(await seenSince(from, 3), [
      { query: PRODUCT_PRICE, cacheHit: false, executed: true, errors: [], sent: true },
      { query: PRODUCT_PRICE, cacheHit: true, executed: false, errors: [], sent: true },
      { query: PRODUCT_PRICE, cacheHit: false, executed: true, errors: [], sent: true },
    ]);
  });
});
