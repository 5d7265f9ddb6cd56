import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { readFile } from 'node:fs/promises';
import { HeaderMap } from '@apollo/server';
import { loadConfig } from '../src/config.js';
import { createApollo } from '../src/graphql/apollo.js';
import { createSchema } from '../src/graphql/schema.js';
import { createRequestScope } from '../src/services.js';
import { RequestRecord } from '../src/pipeline/request-record.js';
import { createFixtureDatabase, startGateway } from './support/gateway.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** What GET /graphql answers, reduced to what tells the IDE from a GraphQL client's answer. */
async function getGraphql(app: FastifyInstance, accept?: string) {
  const response = await app.inject({ url: '/graphql', headers: accept ? { accept } : {} });
  return { status: response.statusCode, type: String(response.headers['content-type']).split(';')[0], response };
}

describe('GraphQL IDE on (GRAPHQL_IDE=true)', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase(), { GRAPHQL_IDE: 'true' });
  });
  after(() => app.close());

  it('gives a browser the IDE page, revalidated, with a Content-Security-Policy that allows only the gateway', async () => {
    const { status, type, response } = await getGraphql(app, BROWSER_ACCEPT);
    assert.equal(status, 200);
    assert.equal(type, 'text/html');
    assert.equal(response.headers['cache-control'], 'no-cache');
    assert.match(String(response.headers.vary), /\bAccept\b/);
    const csp = String(response.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    assert.doesNotMatch(response.body, /https?:\/\//, 'the page names no other host');
  });

  it('leaves non-browser clients to the GraphQL route: they never get HTML', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/graphql-response+json', 'application/json, text/html']) {
      const { type } = await getGraphql(app, accept);
      assert.notEqual(type, 'text/html', `Accept: ${accept}`);
    }
    assert.equal((await getGraphql(app, 'text/html')).type, 'text/html');
  });

  it('serves its assets with content-hashed names as immutable, pre-compressed', async () => {
    const page = (await getGraphql(app, BROWSER_ACCEPT)).response.body;
    const assets = [...page.matchAll(/(?:src|href)="(\/graphql\/ide\/[^"]+)"/g)].map((match) => match[1]!);
    assert.equal(assets.length, 2, 'the script and the stylesheet');
    for (const url of assets) {
      assert.match(url, /-[A-Z0-9]{8}\.(js|css)$/);
      const asset = await app.inject({ url, headers: { 'accept-encoding': 'br, gzip' } });
      assert.equal(asset.statusCode, 200, url);
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(asset.headers['content-encoding'], 'br');
    }
    assert.equal((await app.inject({ url: '/graphql/ide/missing-ABCDEFGH.js' })).statusCode, 404);
  });
});

describe('GraphQL IDE off', () => {
  let app: FastifyInstance;
  before(async () => {
    app = await startGateway(await createFixtureDatabase(), { GRAPHQL_IDE: 'false' });
  });
  after(() => app.close());

  it('gives a browser what any client gets, and serves no IDE assets', async () => {
    const browser = await getGraphql(app, BROWSER_ACCEPT);
    const client = await getGraphql(app, 'application/json');
    assert.notEqual(browser.type, 'text/html');
    assert.deepEqual({ status: browser.status, type: browser.type }, { status: client.status, type: client.type });
    assert.equal(browser.response.body, client.response.body);
    const { script } = JSON.parse(await readFile(new URL('../dist/ide/manifest.json', import.meta.url), 'utf8')) as { script: string };
    assert.equal((await app.inject({ url: `/graphql/ide/${script}` })).statusCode, 404);
  });

  it("never answers a browser's GET with Apollo's landing page (Apollo Sandbox from a CDN)", async () => {
    const apollo = await createApollo(createSchema(), []);
    try {
      const headers = new HeaderMap([['accept', BROWSER_ACCEPT]]);
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: { method: 'GET', headers, search: '', body: undefined },
        context: async () => ({
          services: app.services,
          scope: createRequestScope(app.services),
          authorization: undefined,
          log: app.log,
          record: new RequestRecord('landing-page', performance.now()),
        }),
      });
      assert.doesNotMatch(response.headers.get('content-type') ?? '', /text\/html/);
    } finally {
      await apollo.stop();
    }
  });

  it('is on by default in development and off when NODE_ENV=production (the chart)', () => {
    assert.equal(loadConfig({}).GRAPHQL_IDE, true);
    assert.equal(loadConfig({ NODE_ENV: 'production' }).GRAPHQL_IDE, false);
    assert.equal(loadConfig({ NODE_ENV: 'production', GRAPHQL_IDE: 'true' }).GRAPHQL_IDE, true);
  });
});
