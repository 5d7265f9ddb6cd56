// Runs one scenario with k6 and writes its result folder: summary.json (k6's summary data),
// raw.json.gz (k6's JSON output, one sample a line; gzipped, as a soak writes gigabytes),
// k6.log (k6's stderr) and report.html.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderReport, type K6Summary } from '../report/html.js';
import { readTimeline } from '../report/timeline.js';
import { findK6 } from './k6-binary.js';
import { SCENARIO_DIR, type RunOptions } from './options.js';

export interface RunResult {
  exitCode: number;
  resultDir: string;
  summaryFile: string;
  rawFile: string;
  reportFile: string;
}

/** Trend stats k6 remote-writes as gauges (k6_http_req_duration_p95, …): the dashboard reads p95. */
export const REMOTE_WRITE_TREND_STATS = 'p(95),p(99),avg';

export async function runScenario(options: RunOptions): Promise<RunResult> {
  const k6 = await findK6();
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const resultDir = join(options.resultsDir, `${options.scenario}-${stamp}`);
  await mkdir(resultDir, { recursive: true });
  const summaryFile = join(resultDir, 'summary.json');
  const rawFile = join(resultDir, 'raw.json.gz');
  const reportFile = join(resultDir, 'report.html');

  const args = ['run', '--no-usage-report', '--out', `json=${rawFile}`];
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, SUMMARY_FILE: summaryFile };
  if (options.prometheusUrl) {
    args.push('--out', 'experimental-prometheus-rw');
    env.K6_PROMETHEUS_RW_SERVER_URL = `${options.prometheusUrl}/api/v1/write`;
    env.K6_PROMETHEUS_RW_TREND_STATS ??= REMOTE_WRITE_TREND_STATS;
  }
  for (const [name, value] of Object.entries(options.env)) args.push('--env', `${name}=${value}`);
  args.push(fileURLToPath(new URL(`${options.scenario}.js`, SCENARIO_DIR)));

  const log = createWriteStream(join(resultDir, 'k6.log'));
  const child = spawn(k6, args, { env, stdio: ['ignore', 'inherit', 'pipe'] });
  child.stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    log.write(chunk);
  });
  // Ctrl-C reaches k6 too, which stops the test and still writes its summary: stay alive for
  // that and write the report of the partial run.
  const keepRunning = () => undefined;
  process.on('SIGINT', keepRunning);
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  }).finally(() => process.off('SIGINT', keepRunning));
  log.end();

  // k6 writes no summary when the script fails to start (e.g. a bad setting): report anyway.
  const summary = await readFile(summaryFile, 'utf8').then(
    (text) => JSON.parse(text) as K6Summary,
    () => undefined,
  );
  const timeline = await readTimeline(rawFile).catch(() => []);
  const baseUrl = options.env.BASE_URL ?? process.env.BASE_URL ?? 'http://127.0.0.1:4000';
  await writeFile(
    reportFile,
    renderReport({ scenario: options.scenario, baseUrl, startedAt: startedAt.toISOString(), exitCode, summary, timeline }),
  );
  return { exitCode, resultDir, summaryFile, rawFile, reportFile };
}
