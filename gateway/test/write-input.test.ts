import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { authorized, createFixtureDatabase, graphql, startGateway, withClient } from './support/gateway.js';

const CREATE = 'mutation Create($input: CreateProductInput!) { createProduct(input: $input) { id defaultPrice } }';

/**
 * Writes never alter data silently: text Postgres cannot store (NUL), text that is not Unicode
 * (invalid UTF-8 bytes, unpaired surrogates) and prices with more than two decimals are each a
 * 400 naming the field, over REST and GraphQL alike, and nothing is stored.
 */
describe('product writes refuse what would be stored altered', () => {
  let app: FastifyInstance;
  let databaseUrl: string;
  before(async () => {
    databaseUrl = await createFixtureDatabase();
    app = await startGateway(databaseUrl);
  });
  after(() => app.close());

  const restCreate = (payload: string | Buffer) =>
    app.inject({ method: 'POST', url: '/products', headers: { ...authorized, 'content-type': 'application/json' }, payload });
  const storedNamesLike = async (pattern: string) =>
    (await withClient(databaseUrl, (client) => client.query('SELECT name FROM catalog.products WHERE name LIKE $1', [pattern]))).rowCount;

  it('REST: a NUL byte, an unpaired surrogate or a third decimal is a 400 naming the field', async () => {
    const cases: Array<[string, RegExp]> = [
      ['{"name":"Nul\\u0000Name"}', /name must not contain NUL/],
      ['{"name":"Half","slogan":"x\\ud800y"}', /slogan must not contain NUL bytes or unpaired surrogates/],
      ['{"name":"Cheap","default_price":"1.999"}', /default_price must be a price with at most two decimals/],
      ['{"name":"Cheap","default_price":1.999}', /default_price must be a price with at most two decimals/],
    ];
    for (const [payload, message] of cases) {
      const response = await restCreate(payload);
      assert.equal(response.statusCode, 400, `${payload}: ${response.body}`);
      assert.match(response.json().error, message, payload);
    }
    assert.equal(await storedNamesLike('Nul%'), 0);
    assert.equal(await storedNamesLike('Half'), 0);
    assert.equal(await storedNamesLike('Cheap'), 0);
  });

  it('REST: a body that is not valid UTF-8 is a 400, not stored as U+FFFD', async () => {
    const payload = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const response = await restCreate(payload);
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().error, /not valid UTF-8/);
    assert.equal(await storedNamesLike('Caf%'), 0);
  });

  it('REST: prices with up to two decimals, as text or number, still store exactly', async () => {
    const text = await restCreate('{"name":"Exact Text","default_price":"1.99"}');
    assert.equal(text.statusCode, 201, text.body);
    assert.equal(text.json().default_price, '1.99');
    const number = await restCreate('{"name":"Exact Number","default_price":1.1}');
    assert.equal(number.statusCode, 201, number.body);
    assert.equal(number.json().default_price, '1.10');
  });

  it('GraphQL: the same inputs are 400s naming the field (no raw Postgres message)', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: 'Gql\u0000Nul' }, /name must not contain NUL/],
      [{ name: 'GqlHalf', description: 'a\udc00' }, /description must not contain NUL bytes or unpaired surrogates/],
      [{ name: 'GqlCheap', defaultPrice: '1.999' }, /defaultPrice must be a price with at most two decimals/],
    ];
    for (const [input, message] of cases) {
      const response = await graphql(app, CREATE, { input }, authorized);
      assert.equal(response.statusCode, 400, response.body);
      assert.match(response.json().errors[0].message, message);
      assert.doesNotMatch(response.body, /invalid byte sequence|0x00/, 'no Postgres message leaks');
    }
    assert.equal(await storedNamesLike('Gql%'), 0);
  });
});
