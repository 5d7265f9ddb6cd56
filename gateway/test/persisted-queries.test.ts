import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import type { FastifyInstance } from 'fastify';
import { startRedis, type RedisServer } from '../../scripts/test/redis.js';
import {
  countStatements,
  createFixtureDatabase,
  metricValue,
  postGraphQL,
  startGateway,
  startListeningGateway,
  testRedisUrl,
} from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

/** Apollo Server's answer to a hash it does not know, which Apollo Client's persisted-query link reacts to. */
const NOT_FOUND = { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] };

const PRODUCT_NAME = 'query ProductName($id: ID!) { product(id: $id) { id name } }';
const PRODUCT_SLOGAN = 'query ProductSlogan($id: ID!) { product(id: $id) { id slogan } }';
const CAMO = { data: { product: { id: '1', name: 'Camo Onesie' } } };

describe('automatic persisted queries shared through Redis by two replicas', () => {
  let first: FastifyInstance;
  let second: FastifyInstance;
  before(async () => {
    const databaseUrl = await createFixtureDatabase();
    const env = { REDIS_URL: testRedisUrl(12) };
    [first, second] = await Promise.all([startGateway(databaseUrl, env), startGateway(databaseUrl, env)]);
  });
  after(() => Promise.all([first.close(), second.close()]));

  it("answers a hash it does not know with Apollo Server's PERSISTED_QUERY_NOT_FOUND: 200, never cached", async () => {
    const query = `${PRODUCT_NAME} # never registered`;
    const response = await postGraphQL(first, { query: undefined, variables: { id: '1' }, extensions: persisted(query) });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), NOT_FOUND);
    assert.equal(response.headers['cache-control'], 'private, no-cache, must-revalidate');
    assert.match(await scrapeMetrics(first), /catalog_graphql_persisted_queries_total\{result="miss"\} [1-9]/);
  });

  it('registers a query sent with its hash on one replica; the other answers the hash alone from Redis', async () => {
    const registered = await postGraphQL(first, { query: PRODUCT_NAME, variables: { id: '1' }, extensions: persisted(PRODUCT_NAME) });
    assert.equal(registered.statusCode, 200, registered.body);
    assert.deepEqual(registered.json(), CAMO);
    await first.services.persistedQueries.settled(); // the Redis write happens after the reply

    // The second replica never saw the text: it can only have come from Redis.
    const hashOnly = await postGraphQL(second, { variables: { id: '2' }, extensions: persisted(PRODUCT_NAME) });
    assert.equal(hashOnly.statusCode, 200, hashOnly.body);
    assert.deepEqual(hashOnly.json(), { data: { product: { id: '2', name: 'Bright Future Sunglasses' } } });
    assert.equal(metricValue(await scrapeMetrics(second), 'catalog_graphql_persisted_queries_total{result="hit"}'), 1);
  });

  it('keys the response cache by the resolved text: hash-only and full-text requests share one entry, on every replica', async () => {
    const query = PRODUCT_SLOGAN;
    const variables = { id: '5' };
    const asText = await postGraphQL(first, { query, variables }); // computed once, cached in-process and in Redis
    assert.equal(asText.statusCode, 200, asText.body);
    await postGraphQL(first, { query, variables, extensions: persisted(query) }); // registers the hash
    await Promise.all([first.services.cache.settled(), first.services.persistedQueries.settled()]);

    for (const app of [first, second]) {
      const statements = await countStatements(app, async () => {
        const hashOnly = await postGraphQL(app, { variables, extensions: persisted(query) });
        assert.equal(hashOnly.statusCode, 200, hashOnly.body);
        assert.equal(hashOnly.body, asText.body);
      });
      assert.deepEqual(statements, [], 'answered from the response cache');
    }
    assert.match(await scrapeMetrics(second), /catalog_cache_lookups_total\{backend="redis",result="hit"\} [1-9]/);
  });

  it('refuses a hash that is not the SHA-256 of the query with a 400 naming it, and registers nothing', async () => {
    const other = '{ product(id: 3) { name } }';
    const response = await postGraphQL(first, { query: other, extensions: persisted(PRODUCT_NAME.replace('name', 'slogan')) });
    assert.equal(response.statusCode, 400);
    assert.equal(
      response.json().errors[0].message,
      `extensions.persistedQuery.sha256Hash does not match the query: the query's SHA-256 is ${sha256(other)}`,
    );
    const hashOnly = await postGraphQL(first, { variables: { id: '1' }, extensions: persisted(PRODUCT_NAME.replace('name', 'slogan')) });
    assert.deepEqual(hashOnly.json(), NOT_FOUND, 'the hash was not taken over by the other query');
  });

  it('never registers a query that cannot run: Apollo reports its errors, the hash stays unknown', async () => {
    const invalid = '{ product(id: 1) { nope } }';
    const response = await postGraphQL(first, { query: invalid, extensions: persisted(invalid) });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().errors[0].message, /Cannot query field "nope"/);
    assert.deepEqual((await postGraphQL(first, { extensions: persisted(invalid) })).json(), NOT_FOUND);
  });

  it('answers malformed persisted-query requests with a 400 naming the problem, never a 500', async () => {
    const hash = sha256(PRODUCT_NAME);
    const cases: Array<[unknown, RegExp]> = [
      [{ query: PRODUCT_NAME, extensions: 'not json' }, /extensions is not valid JSON/],
      [{ query: PRODUCT_NAME, extensions: [1] }, /extensions must be a JSON object, not an array/],
      [{ query: PRODUCT_NAME, extensions: 7 }, /extensions must be a JSON object, not a number/],
      [{ extensions: { persistedQuery: 'abc' } }, /extensions.persistedQuery must be \{"version": 1, "sha256Hash"/],
      [{ extensions: { persistedQuery: [hash] } }, /extensions.persistedQuery must be .*not an array/],
      [{ extensions: { persistedQuery: { version: 2, sha256Hash: hash } } }, /version 2: only version 1 is supported/],
      [{ extensions: { persistedQuery: { version: '1', sha256Hash: hash } } }, /version "1": only version 1 is supported/],
      [{ extensions: { persistedQuery: { sha256Hash: hash } } }, /version is missing/],
      [{ extensions: { persistedQuery: { version: 1 } } }, /sha256Hash is a undefined/],
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: 42 } } }, /sha256Hash is a number/],
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: hash.toUpperCase() } } }, /64 lowercase hexadecimal characters/],
      [{ extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(60_000) } } }, /\(60000 characters given\)/],
      [{ query: 42, extensions: persisted(PRODUCT_NAME) }, /query must be a string, not a number/],
      [{ documentId: hash }, /no trusted-documents manifest is configured \(GRAPHQL_TRUSTED_DOCUMENTS\)/],
      [{ doc_id: 'abc', query: PRODUCT_NAME }, /documentId\/doc_id names a trusted document/],
      [JSON.stringify([{ query: PRODUCT_NAME, extensions: persisted(PRODUCT_NAME) }]), /Operation batching disabled/],
      ['"just a string"', /POST body missing/],
    ];
    for (const [body, message] of cases) {
      const response = await postGraphQL(first, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body).slice(0, 120)}: ${response.body.slice(0, 300)}`);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.match(response.json().errors[0].message, message);
      assert.ok(response.body.length < 1_000, 'the answer does not echo what was sent');
    }
    assert.doesNotMatch(await scrapeMetrics(first), /catalog_http_requests_total\{[^}]*status_code="5\d\d"\}/);
  });

  it('runs over GET with extensions as a JSON query parameter; a miss there is never stored by HTTP caches', async () => {
    const get = (query: string) => {
      const search = new URLSearchParams({ variables: JSON.stringify({ id: '1' }), extensions: JSON.stringify(persisted(query)) });
      return first.inject({ method: 'GET', url: `/graphql?${search}`, headers: { accept: 'application/json' } });
    };
    const response = await get(PRODUCT_NAME);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), CAMO);
    const miss = await get(`${PRODUCT_NAME} # unknown over GET`);
    assert.deepEqual(miss.json(), NOT_FOUND);
    assert.match(String(miss.headers['cache-control']), /no-cache|no-store/);
    assert.equal(miss.headers.etag, undefined);
  });
});

describe("Apollo Client's PersistedQueryLink against two replicas sharing Redis", () => {
  let first: { app: FastifyInstance; base: string };
  let second: { app: FastifyInstance; base: string };
  before(async () => {
    const databaseUrl = await createFixtureDatabase();
    const env = { REDIS_URL: testRedisUrl(13) };
    [first, second] = await Promise.all([startListeningGateway(databaseUrl, env), startListeningGateway(databaseUrl, env)]);
  });
  after(() => Promise.all([first.app.close(), second.app.close()]));

  /** An Apollo Client with the persisted-query link, and the request bodies it sent. */
  function client(base: string, useGETForHashedQueries = false) {
    const sent: Array<{ query?: string; extensions?: unknown }> = [];
    const recordingFetch: typeof fetch = (input, init) => {
      if (init?.body) sent.push(JSON.parse(String(init.body)) as { query?: string });
      else sent.push(Object.fromEntries(new URL(String(input)).searchParams));
      return fetch(input, init);
    };
    const link = new PersistedQueryLink({ sha256, useGETForHashedQueries }).concat(
      new HttpLink({ uri: `${base}/graphql`, fetch: recordingFetch }),
    );
    return { apollo: new ApolloClient({ link, cache: new InMemoryCache() }), sent };
  }

  it('registers on the first replica after one PERSISTED_QUERY_NOT_FOUND; the second answers the hash alone', async () => {
    const query = gql(PRODUCT_NAME);
    const a = client(first.base);
    const fromFirst = await a.apollo.query({ query, variables: { id: '1' }, fetchPolicy: 'network-only' });
    assert.deepEqual(fromFirst.data, { product: { __typename: 'Product', id: '1', name: 'Camo Onesie' } });
    assert.deepEqual(
      a.sent.map((body) => [typeof body.query, body.extensions !== undefined]),
      [
        ['undefined', true],
        ['string', true],
      ],
      'hash alone, then hash and text',
    );
    await first.app.services.persistedQueries.settled();

    const b = client(second.base);
    const fromSecond = await b.apollo.query({ query, variables: { id: '5' }, fetchPolicy: 'network-only' });
    assert.equal((fromSecond.data as { product: { name: string } }).product.name, 'Heir Force Ones');
    assert.equal(b.sent.length, 1);
    assert.equal(b.sent[0]!.query, undefined, 'the hash alone was enough');
  });

  it('sends hashed queries over GET (useGETForHashedQueries), answered from the response cache', async () => {
    const query = gql(PRODUCT_SLOGAN);
    await client(first.base).apollo.query({ query, variables: { id: '2' }, fetchPolicy: 'network-only' }); // registers over POST
    await first.app.services.persistedQueries.settled();
    const overGet = client(second.base, true);
    const statements = await countStatements(second.app, async () => {
      const result = await overGet.apollo.query({ query, variables: { id: '2' }, fetchPolicy: 'network-only' });
      assert.equal((result.data as { product: { slogan: string } }).product.slogan, "You've got to wear shades");
    });
    assert.deepEqual(statements, [], 'answered from the response cache shared through Redis');
    assert.equal(overGet.sent.length, 1);
    assert.equal(overGet.sent[0]!.query, undefined);
  });
});

describe('GRAPHQL_APQ=false', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase(), { GRAPHQL_APQ: 'false' });
  });
  after(() => app.close());

  it('answers PERSISTED_QUERY_NOT_SUPPORTED (Apollo Client then sends plain text) and still runs plain queries', async () => {
    const hashed = await postGraphQL(app, { query: PRODUCT_NAME, variables: { id: '1' }, extensions: persisted(PRODUCT_NAME) });
    assert.equal(hashed.statusCode, 200);
    assert.deepEqual(hashed.json(), {
      errors: [{ message: 'PersistedQueryNotSupported', extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } }],
    });
    assert.deepEqual((await postGraphQL(app, { query: PRODUCT_NAME, variables: { id: '1' } })).json(), CAMO);
  });
});

describe('APQ with Redis frozen (SIGSTOP)', () => {
  let redis: RedisServer;
  let first: FastifyInstance;
  let second: FastifyInstance;
  before(async () => {
    redis = await startRedis();
    const databaseUrl = await createFixtureDatabase();
    const env = { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '100' };
    [first, second] = await Promise.all([startGateway(databaseUrl, env), startGateway(databaseUrl, env)]);
  });
  after(async () => {
    redis.thaw();
    await Promise.all([first.close(), second.close()]);
    await redis.stop();
  });

  /** A request that a Redis without a command timeout would hold forever; bounded far above the timeout. */
  async function answered(app: FastifyInstance, body: unknown) {
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer while Redis is frozen')), 10_000);
    });
    try {
      return await Promise.race([postGraphQL(app, body), hung]);
    } finally {
      clearTimeout(timer);
    }
  }

  it('falls back to in-process: a miss asks for the text once, registered queries keep running, never a 500', async () => {
    const registered = await postGraphQL(first, { query: PRODUCT_NAME, variables: { id: '1' }, extensions: persisted(PRODUCT_NAME) });
    assert.deepEqual(registered.json(), CAMO);
    await first.services.persistedQueries.settled();
    redis.freeze();
    try {
      const known = await answered(first, { variables: { id: '1' }, extensions: persisted(PRODUCT_NAME) });
      assert.deepEqual(known.json(), CAMO, 'the registering replica keeps its in-process copy');

      const miss = await answered(second, { variables: { id: '2' }, extensions: persisted(PRODUCT_NAME) });
      assert.equal(miss.statusCode, 200);
      assert.deepEqual(miss.json(), NOT_FOUND, 'Redis did not answer in time: the client is asked for the text');
      const resent = await answered(second, { query: PRODUCT_NAME, variables: { id: '2' }, extensions: persisted(PRODUCT_NAME) });
      assert.equal(resent.statusCode, 200, resent.body);
      assert.equal(resent.json().data.product.name, 'Bright Future Sunglasses');
      const again = await answered(second, { variables: { id: '3' }, extensions: persisted(PRODUCT_NAME) });
      assert.equal(again.json().data.product.name, 'Morning Joggers', 'registered in-process while Redis is away');

      const text = await scrapeMetrics(second);
      assert.ok(
        metricValue(text, 'catalog_cache_errors_total{backend="redis",operation="apq_get"}') >= 1,
        'the stalled lookup was counted',
      );
      assert.doesNotMatch(text, /catalog_http_requests_total\{[^}]*status_code="5\d\d"\}/);
    } finally {
      redis.thaw();
    }
  });
});
