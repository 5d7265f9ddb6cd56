// Every string that reaches SQL on the read path — a filter, a search, a decoded cursor — gets the
// checks write input gets: NUL bytes, bytes that are not UTF-8, unpaired surrogates and over-long
// values are a 400 naming the parameter or argument, over REST and GraphQL (GET and POST), never
// a 500 and never an altered value sent to Postgres.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createFixtureDatabase, graphql, startGateway } from './support/gateway.js';
import { scrapeMetrics } from '../../scripts/test/metrics.js';

const base64url = (text: string | Buffer) => Buffer.from(text).toString('base64url');

/** Percent-encoded values that are not storable text: NUL, not UTF-8 (a stray byte, an encoded surrogate, a cut sequence, not an escape). */
const HOSTILE_URL_VALUES = ['%00', 'Jack%00ets', '%FF', 'caf%E9', '%ED%A0%80', '%E2%82', '%zz'];
const LIST_TEXT_PARAMETERS = ['category', 'min_price', 'max_price', 'q'];

/** JSON strings that are not storable text: NUL, an unpaired surrogate of either half. */
const HOSTILE_JSON_VALUES = ['\u0000', 'Jack\u0000ets', '\ud800', 'x\udfffx'];

const CONNECTION = `query Page($after: String, $filter: ProductFilter, $sort: ProductSort) {
  productsConnection(first: 2, after: $after, filter: $filter, sort: $sort) { nodes { id } }
}`;

describe('hostile input on the read path', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase(), { CACHE_TTL_SECONDS: '0' });
  });
  after(() => app.close());

  const expect400 = async (label: string, response: { statusCode: number; body: string }, names: RegExp) => {
    assert.equal(response.statusCode, 400, `${label}: ${response.body}`);
    const body = JSON.parse(response.body) as { error?: string; errors?: { message: string }[] };
    assert.match(body.error ?? body.errors?.[0]?.message ?? '', names, label);
  };

  it('REST list: NUL, bytes that are not UTF-8 and over-long values in a filter are a 400 naming the parameter', async () => {
    for (const parameter of LIST_TEXT_PARAMETERS) {
      for (const value of HOSTILE_URL_VALUES) {
        const url = `/products?${parameter}=${value}`;
        await expect400(url, await app.inject({ method: 'GET', url }), new RegExp(`\\b${parameter}\\b`));
      }
    }
    await expect400('category too long', await app.inject({ method: 'GET', url: `/products?category=${'x'.repeat(251)}` }), /category/);
    await expect400('q too long', await app.inject({ method: 'GET', url: `/products?q=${'x'.repeat(101)}` }), /\bq\b/);
    // Not UTF-8 in a parameter the route does not take, or in a name: named too.
    await expect400('unknown', await app.inject({ method: 'GET', url: '/products/1?%FF=1' }), /not percent-encoded UTF-8/);
    // Valid text of the same kinds is served.
    for (const url of ['/products?category=caf%C3%A9', '/products?q=%F0%9F%98%80%20camo', '/products?category=Jackets']) {
      assert.equal((await app.inject({ method: 'GET', url })).statusCode, 200, url);
    }
  });

  it('GraphQL filter arguments (POST variables, inline literals) are a 400 naming the argument', async () => {
    for (const field of ['category', 'minPrice', 'maxPrice', 'search']) {
      for (const value of HOSTILE_JSON_VALUES) {
        const label = `filter.${field} = ${JSON.stringify(value)}`;
        await expect400(label, await graphql(app, CONNECTION, { filter: { [field]: value } }), new RegExp(`filter\\.${field}`));
      }
    }
    await expect400(
      'inline NUL',
      await graphql(app, '{ productsConnection(filter: { category: "a\\u0000b" }) { nodes { id } } }'),
      /filter\.category/,
    );
    await expect400('long category', await graphql(app, CONNECTION, { filter: { category: 'x'.repeat(251) } }), /filter\.category .*250/);
    await expect400('long search', await graphql(app, CONNECTION, { filter: { search: 'x'.repeat(101) } }), /filter\.search .*100/);
  });

  it('GraphQL over GET: parameters that are not UTF-8 are a 400 naming them; hostile variables as over POST', async () => {
    const get = (search: string) => app.inject({ method: 'GET', url: `/graphql?${search}`, headers: { accept: 'application/json' } });
    const query = encodeURIComponent(CONNECTION);
    await expect400(
      'query %FF',
      await get(
        `query=${encodeURIComponent('{ productsConnection(filter: {category: "')}%FF%22%7D)%20%7B%20nodes%20%7B%20id%20%7D%20%7D%20%7D`,
      ),
      /query parameter/,
    );
    await expect400(
      'variables %ED%A0%80',
      await get(`query=${query}&variables=%7B%22filter%22%3A%7B%22category%22%3A%22%ED%A0%80%22%7D%7D`),
      /variables parameter/,
    );
    for (const value of HOSTILE_JSON_VALUES) {
      const variables = encodeURIComponent(JSON.stringify({ filter: { category: value } }));
      await expect400(`GET category ${JSON.stringify(value)}`, await get(`query=${query}&variables=${variables}`), /filter\.category/);
    }
  });

  it('decoded cursors: a key with NUL, an unpaired surrogate, bytes that are not UTF-8 or over-long is a 400 naming `after`', async () => {
    const cursors = [
      base64url(JSON.stringify(['NAME_ASC', 'a\u0000b', 1])),
      base64url(JSON.stringify(['NAME_ASC', '\ud800', 1])),
      base64url(JSON.stringify(['NAME_ASC', 'x'.repeat(251), 1])),
      base64url(Buffer.concat([Buffer.from('["NAME_ASC","'), Buffer.from([0xff, 0xfe]), Buffer.from('",1]')])),
      `${base64url(JSON.stringify(['NAME_ASC', 'Camo', 1]))}!!`,
      base64url(JSON.stringify(['NAME_ASC', 'Camo', 1])).repeat(300),
    ];
    for (const after of cursors) {
      await expect400(`after ${after.slice(0, 40)}`, await graphql(app, CONNECTION, { after, sort: 'NAME_ASC' }), /^after: /);
    }
    const issued = await graphql(
      app,
      `
        {
          productsConnection(first: 1, sort: NAME_ASC) {
            pageInfo {
              endCursor
            }
          }
        }
      `,
    );
    const endCursor = issued.json().data.productsConnection.pageInfo.endCursor as string;
    const next = await graphql(app, CONNECTION, { after: endCursor, sort: 'NAME_ASC' });
    assert.equal(next.statusCode, 200, next.body);
  });

  it('counted none of it as a server error', async () => {
    const metrics = await scrapeMetrics(app);
    const serverErrors = metrics.split('\n').filter((line) => /^catalog_http_requests_total\{.*status_code="5\d\d"\}/.test(line));
    assert.deepEqual(serverErrors, []);
  });
});
