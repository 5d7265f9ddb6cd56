// Issue 6's proof: the real gateway (Postgres + Redis) under a short k6 run, scraped by a real
// Prometheus that also receives k6's remote write; then every query of every dashboard panel
// is evaluated through Prometheus' HTTP API and must return data.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspectReport } from '../../k6/report/browser.js';
import type { K6Summary } from '../../k6/report/html.js';
import { runScenario, type RunResult } from '../../k6/runner/run-k6.js';
import { buildDashboard } from '../src/dashboard.js';
import { queryPanels } from '../src/validate.js';
import { startGatewayWithCatalog, type TestGateway } from './support/gateway.js';
import { startPrometheus, type PrometheusSample, type TestPrometheus } from './support/prometheus.js';

const PRODUCTS = 200;
const RATE = 40;
const DURATION_SECONDS = 25;
/** `$__rate_interval` as Grafana would set it for a 1 s scrape interval on a short range. */
const RATE_INTERVAL = '10s';
/** Fed only by in-cluster exporters (kube-state-metrics); the chart test checks their scrape config. */
const IN_CLUSTER_ONLY_PANELS = ['Available replicas', 'Available replicas over time'];
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/loadtest-report.png', import.meta.url));

let gateway: TestGateway;
let prometheus: TestPrometheus;
let resultsDir: string;
let run: RunResult;
let summary: K6Summary;
let runStart: number;
let runEnd: number;

const seconds = (ms: number) => ms / 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A panel query as Grafana sends it with every variable on "All". */
function substitute(expr: string, rateInterval = RATE_INTERVAL): string {
  return expr
    .replaceAll('$__rate_interval', rateInterval)
    .replaceAll('$route', '.*')
    .replaceAll('$operation', '.*')
    .replaceAll('$namespace', '.*');
}

const hasFiniteValue = (series: PrometheusSample[]) =>
  series.some((s) => (s.values ?? []).some(([, value]) => Number.isFinite(Number(value))));

before(async () => {
  gateway = await startGatewayWithCatalog(PRODUCTS);
  prometheus = await startPrometheus({ 'catalog-gateway': gateway.target });
  // Prometheus starts scraping a few seconds after it is ready; counting from before the
  // first scrape would lose the first seconds of the run.
  await prometheus.waitForTarget('catalog-gateway');
  resultsDir = await mkdtemp(join(tmpdir(), 'catalog-k6-results-'));
  runStart = seconds(Date.now());
  run = await runScenario({
    scenario: 'smoke',
    prometheusUrl: prometheus.url,
    resultsDir,
    env: {
      BASE_URL: gateway.baseUrl,
      RATE: String(RATE),
      DURATION: `${DURATION_SECONDS}s`,
      PRODUCT_COUNT: String(PRODUCTS),
      // This test proves the metrics path, not speed (CI's 2 cores run other suites alongside):
      // no latency threshold to speak of; the error-rate and checks thresholds stay.
      P95_MS: '60000',
      K6_PROMETHEUS_RW_PUSH_INTERVAL: '1s',
    },
  });
  runEnd = seconds(Date.now());
  summary = JSON.parse(await readFile(run.summaryFile, 'utf8')) as K6Summary;
  // Let the last scrapes, remote writes and rule evaluations land.
  await sleep(4000);
});

after(async () => {
  await Promise.allSettled([gateway?.stop(), prometheus?.stop()]);
  if (resultsDir) await rm(resultsDir, { recursive: true, force: true });
});

test('the k6 smoke run passes its checks and thresholds against the real gateway', () => {
  const values = (metric: string) => JSON.stringify(summary.metrics[metric]?.values);
  assert.equal(
    run.exitCode,
    0,
    `k6 exited ${run.exitCode}: failed ${values('http_req_failed')}, checks ${values('checks')}, duration ${values('http_req_duration')}`,
  );
  // A starved machine may drop some iterations; the comparisons below use k6's own count.
  const requests = summary.metrics.http_reqs!.values.count!;
  assert.ok(requests >= RATE * DURATION_SECONDS * 0.5, `only ${requests} requests`);
});

test('every panel query of the dashboard returns data from Prometheus', async () => {
  const empty: string[] = [];
  let evaluated = 0;
  for (const panel of queryPanels(buildDashboard())) {
    if (IN_CLUSTER_ONLY_PANELS.includes(panel.title ?? '')) continue;
    for (const target of panel.targets) {
      const series = await prometheus.rangeQuery(substitute(target.expr), Math.floor(runStart), Math.ceil(runEnd) + 3, 1);
      evaluated += 1;
      if (!hasFiniteValue(series)) empty.push(`${panel.title} [${target.refId}]: ${target.expr}`);
    }
  }
  assert.deepEqual(empty, [], 'panel queries without data');
  assert.ok(evaluated >= 20, `only ${evaluated} queries evaluated`);
});

test('the excepted panels are exactly the kube-state-metrics ones', () => {
  const excepted = queryPanels(buildDashboard()).filter((panel) => IN_CLUSTER_ONLY_PANELS.includes(panel.title ?? ''));
  assert.equal(excepted.length, IN_CLUSTER_ONLY_PANELS.length);
  for (const panel of excepted) {
    for (const target of panel.targets) assert.match(target.expr, /^[^{]*kube_deployment_status_replicas_available\{/);
  }
});

test("the request-rate panels agree with k6's own request count within 10 %", async () => {
  const k6Requests = summary.metrics.http_reqs!.values.count!;
  const panels = queryPanels(buildDashboard());
  const window = Math.ceil(runEnd - runStart) + 2;
  for (const title of ['Request rate by route', 'k6 request rate']) {
    const panel = panels.find((p) => p.title === title);
    assert.ok(panel, `no panel "${title}"`);
    // The panel's own query over the whole run: mean rate × window = requests counted.
    const series = await prometheus.query(substitute(panel.targets[0]!.expr, `${window}s`), Math.ceil(runEnd) + 1);
    const perSecond = series.reduce((sum, s) => sum + Number(s.value![1]), 0);
    const counted = perSecond * window;
    const ratio = counted / k6Requests;
    console.log(`${title}: ${counted.toFixed(0)} requests by Prometheus vs ${k6Requests} by k6 (ratio ${ratio.toFixed(3)})`);
    assert.ok(Math.abs(ratio - 1) <= 0.1, `${title}: ${counted.toFixed(0)} vs k6's ${k6Requests}`);
  }
});

test('the k6 p95 panel is in seconds (the panel unit), within what k6 measured', async () => {
  const panel = queryPanels(buildDashboard()).find((p) => p.title === 'k6 request duration p95');
  assert.equal(panel?.fieldConfig?.defaults?.unit, 's');
  const [series] = await prometheus.query(substitute(panel!.targets[0]!.expr), Math.ceil(runEnd) + 1);
  const p95Seconds = Number(series!.value![1]);
  // The panel shows the slowest route's p95 of the last push; k6's overall max bounds it.
  const maxSeconds = summary.metrics.http_req_duration!.values.max! / 1000;
  console.log(
    `k6 p95 panel: ${p95Seconds} s; k6 max ${maxSeconds} s, overall p95 ${summary.metrics.http_req_duration!.values['p(95)']! / 1000} s`,
  );
  assert.ok(p95Seconds > 0 && p95Seconds <= maxSeconds * 1.001, `${p95Seconds} s vs max ${maxSeconds} s`);
});

test('the route and operation variables list what k6 hit', async () => {
  const routes = await prometheus.get<string[]>(
    `/api/v1/label/route/values?match[]=${encodeURIComponent('catalog_http_requests_total{job="catalog-gateway"}')}`,
  );
  for (const route of ['/products', '/products/:product_id', '/products/:product_id/styles', '/products/:product_id/related', '/graphql']) {
    assert.ok(routes.includes(route), `route ${route} missing from ${routes.join(', ')}`);
  }
  const operations = await prometheus.get<string[]>(
    `/api/v1/label/operation_name/values?match[]=${encodeURIComponent('catalog_graphql_operations_total{job="catalog-gateway"}')}`,
  );
  assert.ok(operations.includes('ProductPage'), `operations: ${operations.join(', ')}`);
});

test('Prometheus loaded the rules file and its recording rules produce series', async () => {
  const { groups } = await prometheus.get<{ groups: { name: string; rules: { name: string; health: string; lastError?: string }[] }[] }>(
    '/api/v1/rules',
  );
  const unhealthy = groups.flatMap((g) => g.rules).filter((rule) => rule.health !== 'ok');
  assert.deepEqual(unhealthy, []);
  assert.ok(groups.length >= 5);
  for (const record of [
    'route:catalog_http_requests:rate5m',
    'operation:catalog_graphql_operations:rate5m',
    'job:catalog_http_server_errors:ratio_rate5m',
  ]) {
    const series = await prometheus.query(record, Math.ceil(runEnd));
    assert.ok(series.length > 0, `${record} has no series`);
  }
});

test("the run's HTML report plots RPS, p95 and errors (screenshot kept under docs/ when asked)", async () => {
  const screenshot = process.env.UPDATE_DOCS_SCREENSHOT === '1' ? DOCS_SCREENSHOT : join(resultsDir, 'report.png');
  const { drawn, externalRequests } = await inspectReport(run.reportFile, screenshot);
  assert.deepEqual(externalRequests, []);
  for (const name of ['requests/s', 'p95', 'failed/s']) {
    const series = drawn.find((s) => s.series === name);
    assert.ok(series && series.points >= DURATION_SECONDS - 2 && series.pixels > 200, `${name}: ${JSON.stringify(series)}`);
  }
});

test('a crossed threshold fails the run (k6 exits non-zero) and the report says so', async () => {
  const failing = await runScenario({
    scenario: 'smoke',
    resultsDir,
    env: { BASE_URL: gateway.baseUrl, RATE: '10', DURATION: '3s', PRODUCT_COUNT: String(PRODUCTS), P95_MS: '0.001' },
  });
  assert.equal(failing.exitCode, 99);
  const html = await readFile(failing.reportFile, 'utf8');
  assert.match(html, /FAIL<\/td><td>http_req_duration/);
  assert.match(html, /failed \(k6 exit code 99\)/);
});
