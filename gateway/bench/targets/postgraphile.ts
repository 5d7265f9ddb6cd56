import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../scripts/test/ports.js';
import { answersOk } from '../../../scripts/test/wait.js';
import { ensurePackageInstalled } from '../../../scripts/test/package-install.js';
import { ensureImageNode, IMAGE_NODE } from '../../../scripts/test/image-node.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

/** PostGraphile lives in its own package (own lockfile), and runs on the image's Node like every target. */
const POSTGRAPHILE_DIR = fileURLToPath(new URL('../postgraphile/', import.meta.url));

export interface PostgraphileSettings {
  databaseUrl: string;
  logDir: string;
  log: (message: string) => void;
}

export async function startPostgraphile({ databaseUrl, logDir, log }: PostgraphileSettings): Promise<ServerProcess> {
  await ensureImageNode(log);
  await ensurePackageInstalled(POSTGRAPHILE_DIR, [join(POSTGRAPHILE_DIR, 'node_modules/postgraphile/package.json')], 'PostGraphile', log);
  const port = await freePort();
  return startServerProcess({
    name: 'postgraphile',
    command: IMAGE_NODE,
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
