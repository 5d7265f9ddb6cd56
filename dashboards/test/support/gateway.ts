// The real gateway process (gateway/src/cli.ts through tsx, as `npm start` would run it) over a
// fresh test database filled by the loader, with the suite's Redis as its shared cache.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCatalog, loadCatalog } from '@catalog/loader-job';
import pino from 'pino';
import { createTestDatabase } from '../../../scripts/test/postgres.js';
import { freePort } from '../../../scripts/test/ports.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface TestGateway {
  baseUrl: string;
  /** host:port, the Prometheus scrape target. */
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

  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'gateway/src/cli.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<never>((_, reject) => child.on('exit', (code) => reject(new Error(`gateway exited with ${code}:\n${log}`))));
  const baseUrl = `http://127.0.0.1:${port}`;
  const ready = async () => {
    for (let attempt = 0; attempt < 600; attempt += 1) {
      if (await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`gateway on ${baseUrl} not ready after 60 s:\n${log}`);
  };
  try {
    await Promise.race([ready(), exited]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  exited.catch(() => undefined);
  return {
    baseUrl,
    target: `127.0.0.1:${port}`,
    async stop() {
      child.removeAllListeners('exit');
      if (child.exitCode !== null) return;
      const done = once(child, 'exit');
      child.kill('SIGTERM');
      await done;
    },
  };
}
