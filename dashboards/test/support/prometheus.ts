// A real Prometheus (Debian's /usr/bin/prometheus) for tests: loopback only, free port, 1 s
// scrapes and rule evaluation, the repo's rules file, and the remote-write receiver for k6.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../scripts/test/ports.js';

const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
export const RULES_FILE = fileURLToPath(new URL('../../prometheus-rules.yml', import.meta.url));

export interface PrometheusSample {
  metric: Record<string, string>;
  value?: [number, string];
  values?: [number, string][];
}

export interface TestPrometheus {
  url: string;
  /** Instant query at `time` (unix seconds). */
  query(expr: string, time: number): Promise<PrometheusSample[]>;
  rangeQuery(expr: string, start: number, end: number, stepSeconds: number): Promise<PrometheusSample[]>;
  get<T>(path: string): Promise<T>;
  /** Resolves once a scrape of `job` succeeded (`up` is 1). */
  waitForTarget(job: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrometheus(scrapeTargets: Record<string, string>): Promise<TestPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-prometheus-'));
  const port = await freePort();
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [RULES_FILE],
    scrape_configs: Object.entries(scrapeTargets).map(([job, target]) => ({ job_name: job, static_configs: [{ targets: [target] }] })),
  };
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(configFile, JSON.stringify(config)); // JSON is YAML
  const child: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const spawned = new Promise<never>((_, reject) => {
    child.on('error', (error) => reject(new Error(`cannot run ${PROMETHEUS_BIN} (install Debian's prometheus): ${error.message}`)));
    child.on('exit', (code) => reject(new Error(`prometheus exited with ${code}:\n${log}`)));
  });
  const url = `http://127.0.0.1:${port}`;

  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error ?? response.status}`);
    return body.data;
  };
  const ready = async () => {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const ok = await fetch(`${url}/-/ready`).then((r) => r.ok, () => false);
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`Prometheus on ${url} not ready after 30 s:\n${log}`);
  };
  try {
    await Promise.race([ready(), spawned]);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  spawned.catch(() => undefined);

  const query = async (expr: string, time: number) => {
    const params = new URLSearchParams({ query: expr, time: String(time) });
    return (await get<{ result: PrometheusSample[] }>(`/api/v1/query?${params}`)).result;
  };

  return {
    url,
    get,
    query,
    async waitForTarget(job) {
      for (let attempt = 0; attempt < 300; attempt += 1) {
        const up = await query(`up{job="${job}"}`, Date.now() / 1000);
        if (up.some((sample) => sample.value?.[1] === '1')) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`Prometheus did not scrape job ${job} within 30 s:\n${log}`);
    },
    async rangeQuery(expr, start, end, step) {
      const params = new URLSearchParams({ query: expr, start: String(start), end: String(end), step: String(step) });
      return (await get<{ result: PrometheusSample[] }>(`/api/v1/query_range?${params}`)).result;
    },
    async stop() {
      child.removeAllListeners('exit');
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
