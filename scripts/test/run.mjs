#!/usr/bin/env node
// `npm test` (after its prerequisites step, scripts/prerequisites/install.sh): starts the real
// services the suites share (Postgres, Redis), runs every test file of every folder under node's
// test runner on the Node the gateway image ships, and always tears the services down.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TEST_ROOTS = ['contract/test', 'loader-job/test', 'gateway/test', 'charts/test', 'dashboards/test', 'k6/test', 'scripts/test'];
const TEST_FILE = /\.test\.(ts|mjs)$/;
const started = Date.now();

async function findTestFiles(dir) {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : findTestFiles(path);
      return TEST_FILE.test(entry.name) ? [path] : [];
    }),
  );
  return files.flat();
}

// Filters: `npm test -- gateway` runs only test files whose path contains "gateway".
const filters = process.argv.slice(2);
const files = (await Promise.all(TEST_ROOTS.map((dir) => findTestFiles(join(root, dir)))))
  .flat()
  .map((file) => relative(root, file))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}

// The service helpers are TypeScript: load them through tsx like the tests themselves.
const { register } = await import('tsx/esm/api');
register();
const { startPostgres } = await import('./postgres.ts');
const { startRedis } = await import('./redis.ts');
const { ensureImageNode, IMAGE_NODE } = await import('./image-node.ts');
await ensureImageNode();

const postgres = await startPostgres();
const redis = await startRedis();
const stopServices = async () => {
  await Promise.allSettled([postgres.destroy(), redis.stop()]);
};
process.on('SIGINT', () => void stopServices().then(() => process.exit(130)));
process.on('SIGTERM', () => void stopServices().then(() => process.exit(143)));

// The pinned tools (and the Go they are built with) come first on PATH, as the prerequisites
// step built them: a test that runs `promtool` or `go` gets the pinned one, not the machine's.
const toolsDir = process.env.CATALOG_TOOLS_DIR ?? join(homedir(), '.cache/catalog-gateway/tools');
const path = [join(toolsDir, 'bin'), join(toolsDir, 'go/bin'), process.env.PATH].join(delimiter);

const child = spawn(IMAGE_NODE, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PATH: path, TEST_POSTGRES_ADMIN_URL: postgres.adminUrl, TEST_REDIS_URL: redis.url },
});
const [code] = await new Promise((resolve) => child.on('exit', (...args) => resolve(args)));
await stopServices();
// .ci/run's summary of phases (see scripts/prerequisites/lib/phase.sh).
if (process.env.CATALOG_PHASE_LOG) {
  appendFileSync(process.env.CATALOG_PHASE_LOG, `tests\t${Math.round((Date.now() - started) / 1000)}\n`);
}
process.exit(code ?? 1);
