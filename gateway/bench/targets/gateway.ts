import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HasMetricsUrl } from '../../../scripts/test/metrics.js';
import { freePort } from '../../../scripts/test/ports.js';
import { answersOk } from '../../../scripts/test/wait.js';
import { ensureImageNode, IMAGE_NODE } from '../../../scripts/test/image-node.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The heap the image's Node gives itself in the chart's default 1Gi container: a 560 MiB limit
 * (measured under a 1 GiB memory cgroup), 16 MiB semi-spaces. On a host with more memory V8
 * would size its young generation three times larger.
 */
const CHART_CONTAINER_HEAP_FLAGS = ['--max-old-space-size=512', '--max-semi-space-size=16'] as const;

/** Checkouts whose gateway build was brought up to date by this run. */
const built = new Set<string>();

/**
 * The gateway runs as its image runs it, from the TypeScript build (`gateway/dist`), never
 * through a development loader: tsx's esbuild transform (keepNames) wraps every closure made per
 * request, which measured 4–5 µs more CPU per cached GET. `tsc -b` brings the build up to date
 * with the checkout's sources (a no-op when it is), once per checkout and run.
 */
function buildOnce(repoRoot: string): void {
  if (built.has(repoRoot)) return;
  execFileSync('npx', ['tsc', '-b', 'contract', 'gateway'], { cwd: repoRoot, stdio: 'inherit' });
  built.add(repoRoot);
}

export interface GatewaySettings {
  databaseUrl: string;
  redisUrl: string;
  logLevel: string;
  logDir: string;
  /** Directory for a V8 CPU profile written when the gateway exits, if wanted. */
  cpuProfileDir?: string;
  /** Name of the process (and its log file), when several run. */
  name?: string;
  /** Extra gateway settings (env vars). */
  env?: Record<string, string>;
  /** The checkout whose gateway runs: this one, or another revision for a before/after comparison. */
  repoRoot?: string;
}

/** A started gateway; its metrics listener is on a port of its own. */
export type GatewayProcess = ServerProcess & HasMetricsUrl;

/** The gateway as deployed: its own process, the image's Node, built code, Postgres + Redis, default pool and cache settings. */
export async function startGateway({
  databaseUrl,
  redisUrl,
  logLevel,
  logDir,
  cpuProfileDir,
  name = 'gateway',
  env = {},
  repoRoot = REPO_ROOT,
}: GatewaySettings): Promise<GatewayProcess> {
  buildOnce(repoRoot);
  const [port, metricsPort] = [await freePort(), await freePort()];
  await ensureImageNode();
  const server = await startServerProcess({
    name,
    command: IMAGE_NODE,
    args: [
      // The heap Node sizes itself in the chart's default 1Gi container: the cached bodies live there.
      ...CHART_CONTAINER_HEAP_FLAGS,
      ...(cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : []),
      'gateway/bin/catalog-gateway.js',
    ],
    cwd: repoRoot,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: logLevel,
      ...env,
    },
    port,
    logFile: join(logDir, `${name}.log`),
    isReady: (baseUrl) => answersOk(`${baseUrl}/readyz`),
    startupTimeoutMs: 60_000,
  });
  return Object.assign(server, { metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` });
}
