import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../scripts/test/ports.js';
import { answersOk } from '../../../scripts/test/wait.js';
import { ensureImageNode, IMAGE_NODE } from '../../../scripts/test/image-node.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

const BARE_SERVER = fileURLToPath(new URL('../bare-server.ts', import.meta.url));

export interface BareSettings {
  /** The gateway whose responses the bare server records and then replays. */
  upstreamUrl: string;
  /** Every GET path the bare server will be asked for. */
  paths: readonly string[];
  /** The Accept-Encoding the recording sends. */
  acceptEncoding: string;
  logDir: string;
  /** Names its log and paths files, when several run in turn. */
  name?: string;
}

export async function startBareServer({ upstreamUrl, paths, acceptEncoding, logDir, name = 'bare' }: BareSettings): Promise<ServerProcess> {
  const pathsFile = join(logDir, `${name}-paths.txt`);
  await writeFile(pathsFile, paths.join('\n'));
  const port = await freePort();
  await ensureImageNode();
  return startServerProcess({
    name: 'bare node:http',
    command: IMAGE_NODE,
    args: ['--import', 'tsx', BARE_SERVER],
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: {
      ...process.env,
      NODE_ENV: 'production',
      UPSTREAM_URL: upstreamUrl,
      PATHS_FILE: pathsFile,
      PORT: String(port),
      ACCEPT_ENCODING: acceptEncoding,
    },
    port,
    logFile: join(logDir, `${name}.log`),
    // It listens only once every response is recorded, so answering at all means ready.
    isReady: (baseUrl) => answersOk(`${baseUrl}${paths[0]}`),
    startupTimeoutMs: 15 * 60_000,
  });
}
