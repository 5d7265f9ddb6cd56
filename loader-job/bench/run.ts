/**
 * `npm run bench -- loader [--products N] [--seed S]`: in one run, on one private Postgres and
 * the same clean export (≥1M products, ~26M rows by default), times
 *   (a) raw COPY of the files into unindexed tables + the same key/index builds, and
 *   (b) the loader (checks, quarantine, fresh schema, keys/indexes, swap) as a child process,
 * and prints the ratio b/a, rows/s and the loader's peak RSS. Targets: ratio ≤ 1.3, RSS ≤ 256 MB.
 * A benchmark, never a test: it reports, it does not assert on speed.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres } from '../../scripts/test/postgres.js';
import type { LoadReport } from '../src/load/load-report.js';
import { cachedCleanExport } from './cached-export.js';
import { runMeasured } from './measured-child.js';
import { parseLoaderBenchOptions } from './options.js';
import { rawCopy } from './raw-copy.js';
import { tuneForBulkLoads } from './tune-postgres.js';

const workspace = fileURLToPath(new URL('..', import.meta.url));
const log = (message: string) => console.log(`[loader bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

const options = parseLoaderBenchOptions(process.argv.slice(2));
log(`building the loader (the child runs the compiled CLI, as in production)`);
const build = spawnSync('npx', ['tsc', '-b', '.'], { cwd: workspace, stdio: 'inherit' });
if (build.status !== 0) throw new Error('tsc -b failed');

const dataDir = await cachedCleanExport(options.products, options.seed, log);
const postgres = await startPostgres();
try {
  await tuneForBulkLoads(postgres);

  log('(a) raw COPY + the same key and index builds …');
  const rawStartedAt = performance.now();
  const raw = await rawCopy(await postgres.createDatabase('bench_raw'), dataDir);
  const rawSeconds = (performance.now() - rawStartedAt) / 1000;
  log(`(a) ${raw.rows} rows in ${rawSeconds.toFixed(1)} s`);

  log('(b) the loader, as a child process …');
  const reportFile = join(tmpdir(), `catalog-loader-bench-report-${process.pid}.json`);
  const loader = await runMeasured(
    process.execPath,
    [join(workspace, 'bin/catalog-loader.js'), 'load', '--data', dataDir, '--report', reportFile],
    { ...process.env, DATABASE_URL: await postgres.createDatabase('bench_loader') },
  );
  if (loader.exitCode !== 0) throw new Error(`the loader failed (exit ${loader.exitCode}):\n${loader.output}`);
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as LoadReport;
  if (report.totals.recordsLoaded !== raw.rows || report.totals.recordsRejected !== 0) {
    throw new Error(
      `the loader stored ${report.totals.recordsLoaded} rows (rejected ${report.totals.recordsRejected}); raw COPY stored ${raw.rows}`,
    );
  }

  const ratio = loader.seconds / rawSeconds;
  console.log(`
loader benchmark: ${options.products} products, ${raw.rows} rows (clean export in ${dataDir})
  (a) raw COPY + key/index builds   ${rawSeconds.toFixed(1).padStart(7)} s   ${Math.round(raw.rows / rawSeconds).toLocaleString('en')} rows/s
      of which COPY ${raw.copySeconds.toFixed(1)} s, keys/indexes ${(rawSeconds - raw.copySeconds).toFixed(1)} s
  (b) catalog-loader load           ${loader.seconds.toFixed(1).padStart(7)} s   ${Math.round(raw.rows / loader.seconds).toLocaleString('en')} rows/s
      of which streaming+checks (keys/indexes building alongside) ${report.phases.copySeconds.toFixed(1)} s, rest of keys/indexes+stats ${report.phases.constraintsSeconds.toFixed(1)} s, swap ${report.phases.swapSeconds.toFixed(2)} s
  ratio b/a                         ${ratio.toFixed(2).padStart(7)}     (target ≤ 1.30)
  loader peak RSS                   ${mb(loader.peakRssBytes).padStart(7)}      (target ≤ 256 MB)
`);
} finally {
  await postgres.destroy();
}
