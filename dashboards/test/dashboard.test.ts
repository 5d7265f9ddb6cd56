import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { buildDashboard, renderDashboardJson } from '../src/dashboard.js';
import { renderRulesYaml } from '../src/rules/rule-file.js';
import { queryPanels, validateDashboard } from '../src/validate.js';

const dashboardsDir = new URL('../', import.meta.url);
const readCommitted = (name: string) => readFile(new URL(name, dashboardsDir), 'utf8');

test('the committed dashboard JSON is exactly what the builder produces (regenerate with `npm run dashboards`)', async () => {
  assert.equal(await readCommitted('catalog-gateway.json'), renderDashboardJson());
});

test('the committed rules file is exactly what the rule sources produce (regenerate with `npm run dashboards`)', async () => {
  assert.equal(await readCommitted('prometheus-rules.yml'), renderRulesYaml());
});

test('the committed dashboard passes the structural validation', async () => {
  const { board, problems } = validateDashboard(JSON.parse(await readCommitted('catalog-gateway.json')));
  assert.deepEqual(problems, []);
  assert.ok(board && board.schemaVersion >= 39);
});

test('the validation catches broken dashboards', () => {
  const broken = buildDashboard();
  broken.schemaVersion = 27;
  const [first, second] = queryPanels(broken);
  assert.ok(first && second);
  second.id = first.id;
  second.gridPos = { ...first.gridPos!, w: 30 };
  first.datasource = { type: 'prometheus', uid: 'my-prometheus' };
  first.targets[0]!.expr = 'rate(catalog_http_requests_totl{route=~"$rout"}[5m])';
  const { problems } = validateDashboard(broken);
  const expected = [
    /schemaVersion 27/,
    /duplicate id/,
    /outside the 24-column grid/,
    /datasource must be \$\{datasource\}/,
    /unknown variable \$rout/,
    /range \[5m\] should be \[\$__rate_interval\]/,
    /unknown metric catalog_http_requests_totl/,
  ];
  for (const pattern of expected)
    assert.ok(
      problems.some((p) => pattern.test(p)),
      `no problem matches ${pattern}: ${problems.join('; ')}`,
    );
});

test('the dashboard covers every signal the issue asks for', () => {
  const titles = queryPanels(buildDashboard()).map((panel) => panel.title);
  for (const wanted of [
    /Request rate by route/,
    /5xx error rate by route/,
    /4xx error rate by route/,
    /Latency p50 \/ p95 \/ p99 by route/,
    /Operation rate/,
    /Operation error rate/,
    /Operation latency/,
    /Cache hit ratio/,
    /DB pool/,
    /DataLoader batch size/,
    /CPU/,
    /Memory/,
    /Event-loop lag/,
    /replicas/i,
    /k6 virtual users/,
    /k6 request rate/,
    /k6 request duration p95/,
  ]) {
    assert.ok(
      titles.some((title) => wanted.test(title ?? '')),
      `no panel titled like ${wanted}`,
    );
  }
});

test('the p95 latency queries show their exemplars (traced requests), and only those', () => {
  const withExemplars = queryPanels(buildDashboard()).flatMap((panel) =>
    (panel.targets ?? [])
      .filter((target) => (target as { exemplar?: boolean }).exemplar)
      .map((target) => `${panel.title}: ${(target as { legendFormat?: string }).legendFormat}`),
  );
  assert.deepEqual(withExemplars, [
    'Latency p50 / p95 / p99 by route: {{route}} p95',
    'Operation latency p50 / p95 / p99: {{operation_name}} p95',
  ]);
});
