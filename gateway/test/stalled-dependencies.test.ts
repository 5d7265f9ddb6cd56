import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { startPostgres, type PostgresServer } from '../../scripts/test/postgres.js';
import { createCatalog, eventually, graphql, startGateway } from './support/gateway.js';

const seed = () => readFile(new URL('fixtures/seed.sql', import.meta.url), 'utf8');

describe('Postgres frozen (SIGSTOP): alive but silent', () => {
  let postgres: PostgresServer;
  let app: FastifyInstance;
  before(async () => {
    postgres = await startPostgres();
    const databaseUrl = await postgres.createDatabase('frozen');
    await createCatalog(databaseUrl, await seed());
    app = await startGateway(databaseUrl, { DB_POOL_MAX: '4', DB_STATEMENT_TIMEOUT_MS: '300', DB_POOL_ACQUIRE_TIMEOUT_MS: '300', CACHE_TTL_SECONDS: '0' });
  });
  after(async () => {
    await postgres.thaw().catch(() => {});
    await app.close();
    await postgres.destroy();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });

  it('answers 503 with Retry-After (never 500) on REST and GraphQL, then recovers when thawed', async () => {
    assert.equal((await get('/products/1')).statusCode, 200, 'pool connections are open');
    await postgres.freeze();
    try {
      for (const url of ['/products/2', '/products/2/styles']) {
        const response = await get(url);
        assert.equal(response.statusCode, 503, `${url}: ${response.body}`);
        assert.ok(Number(response.headers['retry-after']) > 0, 'Retry-After names a delay');
        assert.match(response.json().error, /database/);
      }
      const graph = await graphql(app, '{ product(id: 3) { name } }');
      assert.equal(graph.statusCode, 503, graph.body);
      assert.ok(Number(graph.headers['retry-after']) > 0);
    } finally {
      await postgres.thaw();
    }
    await eventually('served again', async () => (await get('/products/2')).statusCode === 200);
  });
});
