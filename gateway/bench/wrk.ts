import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const REPLAY_SCRIPT = fileURLToPath(new URL('./wrk/replay-plan.lua', import.meta.url));
const RESULT_PREFIX = 'WRK_RESULT ';

export interface LoadSettings {
  threads: number;
  connections: number;
  durationSeconds: number;
  timeoutSeconds: number;
  /** Sent with every GET (e.g. `gzip, deflate, br`, as browsers do); none by default. */
  acceptEncoding?: string;
}

/** What wrk/replay-plan.lua reports (times in microseconds). */
interface WrkSummary {
  requests: number;
  durationMicros: number;
  bytes: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  timeouts: number;
  statusErrors: number;
  p50Micros: number;
  p95Micros: number;
  p99Micros: number;
  maxMicros: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  /** HTTP status ≥ 400 plus socket errors and timeouts. */
  errors: number;
  errorDetail: Omit<WrkSummary, 'requests' | 'durationMicros' | 'bytes' | `p${string}` | 'maxMicros'>;
}

/** Replays `planFile` against `baseUrl` with wrk for a bounded time, on loopback. */
export async function runWrk(baseUrl: string, planFile: string, settings: LoadSettings): Promise<LoadResult> {
  const args = [
    `-t${settings.threads}`,
    `-c${settings.connections}`,
    `-d${settings.durationSeconds}s`,
    `--timeout`,
    `${settings.timeoutSeconds}s`,
    '-s',
    REPLAY_SCRIPT,
    baseUrl,
    '--',
    planFile,
    String(settings.threads),
    ...(settings.acceptEncoding ? [settings.acceptEncoding] : []),
  ];
  const { stdout } = await promisify(execFile)('wrk', args, { maxBuffer: 1 << 20 });
  const line = stdout.split('\n').find((candidate) => candidate.startsWith(RESULT_PREFIX));
  if (!line) throw new Error(`wrk printed no result for ${baseUrl}:\n${stdout}`);
  const summary = JSON.parse(line.slice(RESULT_PREFIX.length)) as WrkSummary;
  const { connectErrors, readErrors, writeErrors, timeouts, statusErrors } = summary;
  return {
    requests: summary.requests,
    seconds: summary.durationMicros / 1e6,
    rps: summary.requests / (summary.durationMicros / 1e6),
    p50Ms: summary.p50Micros / 1000,
    p95Ms: summary.p95Micros / 1000,
    p99Ms: summary.p99Micros / 1000,
    errors: connectErrors + readErrors + writeErrors + timeouts + statusErrors,
    errorDetail: { connectErrors, readErrors, writeErrors, timeouts, statusErrors },
  };
}
