// The self-contained HTML report of one k6 run: headline numbers, thresholds, and plots of
// requests per second, latency and errors over time. One file, inline CSS and SVG only.
import type { SecondBucket } from './timeline.js';
import { lineChart } from './svg-chart.js';

/** The parts of k6's summary JSON the report shows. */
export interface K6Summary {
  metrics: Record<string, { type?: string; values: Record<string, number>; thresholds?: Record<string, { ok: boolean }> }>;
  state?: { testRunDurationMs?: number };
}

export interface ReportInput {
  scenario: string;
  baseUrl: string;
  startedAt: string;
  exitCode: number;
  summary: K6Summary | undefined;
  timeline: SecondBucket[];
}

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

const fixed = (value: number | undefined, digits: number, unit = '') =>
  value === undefined || Number.isNaN(value) ? 'n/a' : `${value.toFixed(digits)}${unit}`;

function headline(summary: K6Summary | undefined): string {
  const metric = (name: string) => summary?.metrics[name]?.values ?? {};
  const duration = metric('http_req_duration');
  const rows: [string, string][] = [
    ['Requests', `${metric('http_reqs').count ?? 0} (${fixed(metric('http_reqs').rate, 1, '/s')})`],
    ['p50 / p95 / p99', `${fixed(duration.med, 1)} / ${fixed(duration['p(95)'], 1)} / ${fixed(duration['p(99)'], 1)} ms`],
    ['Failed requests', fixed((metric('http_req_failed').rate ?? 0) * 100, 2, ' %')],
    ['Checks passed', fixed((metric('checks').rate ?? 0) * 100, 2, ' %')],
    ['Dropped iterations', String(metric('dropped_iterations').count ?? 0)],
  ];
  return rows.map(([name, value]) => `<tr><th>${name}</th><td>${escape(value)}</td></tr>`).join('\n');
}

function thresholdRows(summary: K6Summary | undefined): string {
  const rows = Object.entries(summary?.metrics ?? {}).flatMap(([metric, { thresholds }]) =>
    Object.entries(thresholds ?? {}).map(
      ([expression, { ok }]) =>
        `<tr class="${ok ? 'pass' : 'fail'}"><td>${ok ? 'PASS' : 'FAIL'}</td><td>${escape(metric)}</td><td><code>${escape(expression)}</code></td></tr>`,
    ),
  );
  return rows.length > 0 ? rows.join('\n') : '<tr><td colspan="3">no thresholds</td></tr>';
}

export function renderReport(input: ReportInput): string {
  const at = (pick: (b: SecondBucket) => number | null) => input.timeline.map((b): [number, number | null] => [b.second, pick(b)]);
  const charts = [
    lineChart({
      id: 'rps',
      title: 'Requests per second (sent, and dropped for lack of VUs)',
      xLabel: 'seconds since start',
      yLabel: 'requests/s',
      series: [
        { name: 'requests/s', color: '#1f77b4', points: at((b) => b.requests) },
        // Iterations the executor could not start: asked rate = requests/s + dropped/s.
        { name: 'dropped/s', color: '#7f7f7f', points: at((b) => b.dropped) },
        { name: 'VUs', color: '#9467bd', points: at((b) => b.vus) },
      ],
    }),
    lineChart({
      id: 'latency',
      title: 'Request duration per second',
      xLabel: 'seconds since start',
      yLabel: 'milliseconds',
      series: [
        { name: 'p95', color: '#d62728', points: at((b) => b.p95Ms) },
        { name: 'p50', color: '#2ca02c', points: at((b) => b.p50Ms) },
      ],
    }),
    lineChart({
      id: 'errors',
      title: 'Failed requests per second',
      xLabel: 'seconds since start',
      yLabel: 'failed requests/s',
      series: [{ name: 'failed/s', color: '#ff7f0e', points: at((b) => b.failed) }],
    }),
  ];
  const verdict = input.exitCode === 0 ? 'passed' : `failed (k6 exit code ${input.exitCode})`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>k6 ${escape(input.scenario)} — ${escape(input.startedAt)}</title>
<style>
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 960px; }
h1 { font-size: 22px; margin-bottom: 4px; }
.meta { color: #666; margin-top: 0; }
.verdict.passed { color: #1a7f37; } .verdict.failed { color: #c62828; }
table { border-collapse: collapse; margin: 12px 0 20px; }
th, td { text-align: left; padding: 4px 12px 4px 0; border-bottom: 1px solid #eee; }
tr.pass td:first-child { color: #1a7f37; font-weight: bold; } tr.fail td:first-child { color: #c62828; font-weight: bold; }
figure { margin: 0 0 24px; } figcaption { font-weight: bold; margin-bottom: 4px; }
</style>
</head>
<body>
<h1>k6 load test: ${escape(input.scenario)} <span class="verdict ${input.exitCode === 0 ? 'passed' : 'failed'}">${escape(verdict)}</span></h1>
<p class="meta">${escape(input.baseUrl)} · started ${escape(input.startedAt)} · ${input.timeline.length} s of samples</p>
<table>${headline(input.summary)}</table>
<h2>Thresholds</h2>
<table>${thresholdRows(input.summary)}</table>
${charts.join('\n')}
</body>
</html>
`;
}
