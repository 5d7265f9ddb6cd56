// The real gateway process (gateway/src/cli.ts through tsx, as `npm start` would run it) over a
// fresh test database filled by the loader, with the suite's Redis as its shared cache.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import pino from 'pino';
import { createTestDatabase } from '../../../scripts/test/postgres.js';
import { freePort } from '../../../scripts/test/ports.js';
import { startServer } from '../../../scripts/test/process.js';
import { answersOk } from '../../../scripts/test/wait.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface TestGateway {
  baseUrl: string;
  /** host:port of the gateway's metrics listener: the Prometheus scrape target. */
  target: string;
  stop(): Promise<void>;
}

export async function startGatewayWithCatalog(products: number): Promise<TestGateway> {
  const redisUrl = process.env.TEST_REDIS_URL;
  if (!redisUrl) throw new Error('TEST_REDIS_URL is not set: run the tests with `npm test`, which starts Redis');
  const databaseUrl = await createTestDatabase('obs_e2e');
  const dataDir = await mkdtemp(join(tmpdir(), 'catalog-obs-data-'));
  await generateCatalog({ outDir: dataDir, products, seed: 6 });
  await loadCatalog({ databaseUrl, dataDir, logger: pino({ level: 'warn' }) });
  await rm(dataDir, { recursive: true, force: true });

  const [port, metricsPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await startServer('catalog-gateway', process.execPath, ['--import', 'tsx', 'gateway/src/cli.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
    },
    isReady: () => answersOk(`${baseUrl}/readyz`),
    timeoutMs: 60_000,
  });
  return {
    baseUrl,
    target: `127.0.0.1:${metricsPort}`,
    stop: async () => {
      await server.stop();
    },
  };
}
