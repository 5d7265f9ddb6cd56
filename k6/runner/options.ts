// Command line of `npm run loadtest -- <scenario> [options]`.
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';

export const SCENARIO_DIR = new URL('../scenarios/', import.meta.url);
export const SCENARIOS = readdirSync(SCENARIO_DIR)
  .filter((name) => name.endsWith('.js'))
  .map((name) => name.replace(/\.js$/, ''))
  .sort();

export const USAGE = `usage: npm run loadtest -- <scenario> [options]
scenarios: ${SCENARIOS.join(', ')}
options:
  --base-url URL         gateway to load (default $BASE_URL or http://127.0.0.1:4000)
  --prometheus-url URL   also remote-write k6 metrics to this Prometheus
                         (needs --web.enable-remote-write-receiver)
  --rate N               requests per second (arrival-rate scenarios; ramp: --env PEAK_RATE=N)
  --duration D           k6 duration, e.g. 30s, 5m
  --env NAME=VALUE       any scenario setting (PRODUCT_COUNT, P95_MS, ...), repeatable
  --results-dir DIR      parent of the run's result folder (default k6/results)`;

export interface RunOptions {
  scenario: string;
  baseUrl?: string;
  prometheusUrl?: string;
  env: Record<string, string>;
  resultsDir: string;
}

export class UsageError extends Error {}

export function parseRunOptions(argv: string[], defaultResultsDir: string): RunOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'base-url': { type: 'string' },
      'prometheus-url': { type: 'string' },
      rate: { type: 'string' },
      duration: { type: 'string' },
      env: { type: 'string', multiple: true },
      'results-dir': { type: 'string' },
    },
  });
  const [scenario, ...extra] = positionals;
  if (!scenario) throw new UsageError('no scenario given');
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  if (!SCENARIOS.includes(scenario)) throw new UsageError(`unknown scenario "${scenario}"`);
  for (const [flag, url] of [
    ['--base-url', values['base-url']],
    ['--prometheus-url', values['prometheus-url']],
  ] as const) {
    if (url !== undefined && !/^https?:\/\/[^/]+/.test(url)) throw new UsageError(`${flag} must be an http(s) URL, got "${url}"`);
  }
  const env: Record<string, string> = {};
  for (const pair of values.env ?? []) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new UsageError(`--env wants NAME=VALUE, got "${pair}"`);
    env[match[1]!] = match[2]!;
  }
  if (values.rate !== undefined) env.RATE = values.rate;
  if (values.duration !== undefined) env.DURATION = values.duration;
  if (values['base-url'] !== undefined) env.BASE_URL = values['base-url'];
  return {
    scenario,
    baseUrl: values['base-url'],
    prometheusUrl: values['prometheus-url']?.replace(/\/+$/, ''),
    env,
    resultsDir: values['results-dir'] ?? defaultResultsDir,
  };
}
