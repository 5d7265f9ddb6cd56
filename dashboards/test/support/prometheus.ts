// A real Prometheus (Debian's /usr/bin/prometheus) for tests: loopback only, free port, 1 s
// scrapes and rule evaluation, the repo's rules file, and the remote-write receiver for k6.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../scripts/test/ports.js';
import { startServer } from '../../../scripts/test/process.js';
import { answersOk, waitFor } from '../../../scripts/test/wait.js';

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

export interface PrometheusOptions {
  /** `--enable-feature` flags, e.g. `exemplar-storage`. */
  features?: string[];
}

export async function startPrometheus(scrapeTargets: Record<string, string>, options: PrometheusOptions = {}): Promise<TestPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'catalog-prometheus-'));
  const port = await freePort();
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: [RULES_FILE],
    scrape_configs: Object.entries(scrapeTargets).map(([job, target]) => ({ job_name: job, static_configs: [{ targets: [target] }] })),
  };
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(configFile, JSON.stringify(config)); // JSON is YAML
  const url = `http://127.0.0.1:${port}`;
  const server = await startServer(
    "Prometheus (Debian's prometheus package)",
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-remote-write-receiver',
      '--log.level=warn',
      ...(options.features?.length ? [`--enable-feature=${options.features.join(',')}`] : []),
    ],
    { isReady: () => answersOk(`${url}/-/ready`), timeoutMs: 30_000 },
  ).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });

  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error ?? response.status}`);
    return body.data;
  };
  const query = async (expr: string, time: number) => {
    const params = new URLSearchParams({ query: expr, time: String(time) });
    return (await get<{ result: PrometheusSample[] }>(`/api/v1/query?${params}`)).result;
  };

  return {
    url,
    get,
    query,
    async rangeQuery(expr, start, end, step) {
      const params = new URLSearchParams({ query: expr, start: String(start), end: String(end), step: String(step) });
      return (await get<{ result: PrometheusSample[] }>(`/api/v1/query_range?${params}`)).result;
    },
    async waitForTarget(job) {
      await waitFor(
        `Prometheus to scrape job ${job} successfully`,
        async () => (await query(`up{job="${job}"}`, Date.now() / 1000)).some((sample) => sample.value?.[1] === '1') || undefined,
        30_000,
        200,
      );
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
