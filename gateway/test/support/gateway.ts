import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { CHANGE_LOG_TABLE, createCatalogSchema, installChangeCapture, SERVING_SCHEMA } from '@catalog/contract';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { GroupProcess } from '../../../scripts/test/process.js';
import { waitFor } from '../../../scripts/test/wait.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTestDatabase } from '../../../scripts/test/postgres.js';

export const WRITE_TOKEN = 'test-write-token-0123456789';

/** Runs `work` with a connected client on `databaseUrl`. */
export async function withClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates the serving schema (tables, keys, indexes) in `databaseUrl`, runs `seedSql`, then
 * installs change capture, as a loader's swap leaves a catalog: what is written after is captured,
 * the seed is not (gateways started on it have nothing to announce).
 */
export async function createCatalog(databaseUrl: string, seedSql = ''): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    await client.query('BEGIN');
    await createCatalogSchema(client, SERVING_SCHEMA, { withConstraints: true });
    await client.query('COMMIT');
    if (seedSql) await client.query(seedSql);
    await client.query('BEGIN');
    await installChangeCapture(client, SERVING_SCHEMA);
    await client.query('COMMIT');
  });
}

/**
 * Runs `work` on `databaseUrl` as part of the catalog a loader swapped in, not as a change to it:
 * what it writes leaves nothing in the change log. Left there, its entries would be announced by
 * the first gateway to start, racing the test's first reads (a body cached by one gateway
 * invalidated before the other reads it).
 */
export async function seedBeforeGatewaysStart<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withClient(databaseUrl, async (client) => {
    const result = await work(client);
    await client.query(`DELETE FROM ${CHANGE_LOG_TABLE}`);
    return result;
  });
}

/** A fresh database on the suite's Postgres holding the hand-made fixture catalog. */
export async function createFixtureDatabase(): Promise<string> {
  const databaseUrl = await createTestDatabase('gateway');
  await createCatalog(databaseUrl, await readFile(new URL('../fixtures/seed.sql', import.meta.url), 'utf8'));
  return databaseUrl;
}

/**
 * Test gateways take any free port for their metrics listener (`app.metricsUrl`; read it with
 * scripts/test/metrics.ts): the default 9464 would clash between gateways running at once.
 */
const ANY_METRICS_PORT = { METRICS_PORT: '0' };

/** A gateway built in-process on `databaseUrl` (its public port not listening: use `inject`). */
export async function startGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', WRITE_TOKEN, ...ANY_METRICS_PORT, ...env });
  const app = await buildApp(config);
  await app.ready();
  return app;
}

/**
 * A gateway listening on a free loopback port, for what `inject` cannot show: the hot lane in
 * front of Fastify, raw HTTP errors, outside clients. Returns the app and its base URL.
 */
export async function startListeningGateway(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<{ app: FastifyInstance; base: string }> {
  const app = await startGateway(databaseUrl, env);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

/** Counts the SQL statements the gateway sends while `work` runs. */
export async function countStatements(app: FastifyInstance, work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const record = (text: string) => statements.push(text);
  app.services.db.statements.on('statement', record);
  try {
    await work();
  } finally {
    app.services.db.statements.off('statement', record);
  }
  return statements;
}

export const authorized = { authorization: `Bearer ${WRITE_TOKEN}` };

export function graphql(app: FastifyInstance, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) {
  return postGraphQL(app, { query, variables }, headers);
}

/** POST /graphql with any body: an object sent as JSON (persisted-query fields and all), a string as is. */
export function postGraphQL(app: FastifyInstance, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export { metricValue } from '../../../scripts/test/metrics.js';

/** The suite's Redis, on a database number of the caller's own so cached bodies never mix. */
export function testRedisUrl(database: number): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) throw new Error('TEST_REDIS_URL is not set: run the tests with `npm test`, which starts Redis');
  return `${url}/${database}`;
}

/** Waits until `probe` holds, for effects that arrive asynchronously. */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  await waitFor(what, async () => (await probe()) || undefined, timeoutMs, 50);
}

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The gateway CLI from source (`catalog-gateway <args>`, or another entry such as `npm start`'s) as
 * a child process, its output kept for assertions.
 */
export function startGatewayCli(args: string[], env: Record<string, string>, entry = 'gateway/src/cli.ts'): GroupProcess {
  return new GroupProcess('catalog-gateway', process.execPath, ['--import', 'tsx', entry, ...args], undefined, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...ANY_METRICS_PORT, ...env },
  });
}
