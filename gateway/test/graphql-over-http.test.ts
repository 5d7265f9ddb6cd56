// GraphQL over HTTP: a client that accepts `application/graphql-response+json` gets it, whoever
// answers (the direct path, Apollo, the response cache), and the graphql-http audit of the spec
// finds nothing beyond Apollo's deliberate 4xx for request errors under plain JSON.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { auditServer } from 'graphql-http';
import { countStatements, createFixtureDatabase, graphql, startListeningGateway } from './support/gateway.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';

describe('GraphQL over HTTP', () => {
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    ({ app, base } = await startListeningGateway(await createFixtureDatabase()));
  });
  after(() => app.close());

  const accepting = (accept: string | undefined): Record<string, string> => (accept === undefined ? {} : { accept });

  it('answers in the media type the client prefers: executed directly, from the cache, over GET', async () => {
    const query = '{ product(id: "1") { id name } }';
    const cases: [string | undefined, string][] = [
      ['application/graphql-response+json', GRAPHQL_RESPONSE],
      ['application/graphql-response+json, application/json;q=0.9', GRAPHQL_RESPONSE],
      ['application/json, application/graphql-response+json;q=0.5', JSON_RESPONSE],
      ['application/json', JSON_RESPONSE],
      ['*/*', JSON_RESPONSE],
      [undefined, JSON_RESPONSE],
    ];
    // The first request executes; every later one is answered from the response cache.
    const executed = await graphql(app, query, undefined, accepting(cases[0]![0]));
    assert.equal(executed.headers['content-type'], GRAPHQL_RESPONSE);
    const statements = await countStatements(app, async () => {
      for (const [accept, contentType] of cases) {
        const post = await graphql(app, query, undefined, accepting(accept));
        assert.equal(post.statusCode, 200);
        assert.equal(post.headers['content-type'], contentType, `POST, Accept: ${accept}`);
        assert.match(String(post.headers.vary), /\baccept\b/i, 'caches are told the media type varies');
        const get = await fetch(`${base}/graphql?query=${encodeURIComponent(query)}`, { headers: accepting(accept) });
        assert.equal(get.headers.get('content-type'), contentType, `GET, Accept: ${accept}`);
        assert.equal(await get.text(), post.body, 'one body in either media type');
      }
    });
    assert.deepEqual(statements, [], 'answered from the cache');
  });

  it("answers Apollo's responses (errors, requests the direct path leaves to it) in the preferred media type too", async () => {
    const headers = { accept: 'application/graphql-response+json' };
    for (const query of ['{ product(id: "abc") { id } }', '{ product(id: "1") { nope } }', '{ product(id: "1") { id }']) {
      const response = await graphql(app, query, undefined, headers);
      assert.equal(response.headers['content-type'], GRAPHQL_RESPONSE, `${query}: ${response.body}`);
      assert.ok(response.json().errors.length > 0);
    }
  });

  it('passes the graphql-http audit: no warning but for 4xx on request errors under application/json, no error', async () => {
    const results = await auditServer({ url: `${base}/graphql` });
    const notOk = results.filter((result) => result.status !== 'ok');
    for (const result of notOk) console.log(`${result.status} ${result.id} ${result.name}: ${'reason' in result ? result.reason : ''}`);
    const deliberate = /^SHOULD use (a status code of )?200 (status code )?on .* when accepting application\/json$/;
    const unexpected = notOk.filter((result) => result.status !== 'warn' || !deliberate.test(result.name));
    assert.deepEqual(
      unexpected.map((result) => `${result.status} ${result.id} ${result.name}`),
      [],
    );
    assert.ok(results.length > 40, `${results.length} audits ran`);
  });
});
