// Service-wide SLIs over the burn-rate windows and the alerts on them.
//
// SLOs: 99 % of requests succeed (5xx share under 1 %), and 95 % finish within 50 ms (p95 under
// 50 ms, so 5 % may be slower). Multi-window burn rates: 14.4x burns 2 % of a 30-day budget in
// an hour (page), 6x burns 5 % in six hours (ticket); the short window lets an alert clear soon
// after the burn stops.
import { SERVED_ROUTES } from '../queries.js';
import type { AlertingRule, RecordingRule, RuleGroup } from './types.js';

export const ERROR_BUDGET = 0.01;
export const LATENCY_THRESHOLD_SECONDS = 0.05;
export const SLOW_BUDGET = 0.05;

const WINDOWS = ['5m', '30m', '1h', '6h'] as const;
type Window = (typeof WINDOWS)[number];

const BURNS: { name: 'Fast' | 'Slow'; factor: number; long: Window; short: Window; for: string; severity: 'critical' | 'warning' }[] = [
  { name: 'Fast', factor: 14.4, long: '1h', short: '5m', for: '2m', severity: 'critical' },
  { name: 'Slow', factor: 6, long: '6h', short: '30m', for: '15m', severity: 'warning' },
];

const served = (window: Window, matching = '') =>
  `sum by (job) (rate(catalog_http_requests_total{${SERVED_ROUTES}${matching}}[${window}]))`;

const errorRatio = (window: Window) => `job:catalog_http_server_errors:ratio_rate${window}`;
const slowRatio = (window: Window) => `job:catalog_http_slow_requests:ratio_rate${window}`;

function sliRules(window: Window): RecordingRule[] {
  const histogram = (series: string, matching = '') =>
    `sum by (job) (rate(catalog_http_request_duration_seconds_${series}{${SERVED_ROUTES}${matching}}[${window}]))`;
  return [
    {
      record: errorRatio(window),
      expr: `(${served(window, ', status_code=~"5.."')} or ${served(window)} * 0) / ${served(window)}`,
    },
    {
      record: slowRatio(window),
      expr: `1 - ${histogram('bucket', `, le="${LATENCY_THRESHOLD_SECONDS}"`)} / ${histogram('count')}`,
    },
  ];
}

export const sliGroup: RuleGroup = { name: 'catalog-gateway-slo-sli', rules: WINDOWS.flatMap(sliRules) };

function burnAlerts(): AlertingRule[] {
  return BURNS.flatMap((burn) => [
    {
      alert: `CatalogGatewayErrorBudget${burn.name}Burn`,
      expr: `${errorRatio(burn.long)} > (${burn.factor} * ${ERROR_BUDGET}) and ${errorRatio(burn.short)} > (${burn.factor} * ${ERROR_BUDGET})`,
      for: burn.for,
      labels: { severity: burn.severity, slo: 'availability' },
      annotations: {
        summary: `Gateway 5xx responses burn the error budget ${burn.factor}x too fast`,
        description: `{{ $value | humanizePercentage }} of requests failed with 5xx over the last ${burn.long} (and ${burn.short}); SLO: under 1 %.`,
      },
    },
    {
      alert: `CatalogGatewayLatencyBudget${burn.name}Burn`,
      expr: `${slowRatio(burn.long)} > (${burn.factor} * ${SLOW_BUDGET}) and ${slowRatio(burn.short)} > (${burn.factor} * ${SLOW_BUDGET})`,
      for: burn.for,
      labels: { severity: burn.severity, slo: 'latency' },
      annotations: {
        summary: `Gateway requests over 50 ms burn the latency budget ${burn.factor}x too fast`,
        description: `{{ $value | humanizePercentage }} of requests took over 50 ms over the last ${burn.long} (and ${burn.short}); SLO: p95 under 50 ms.`,
      },
    },
  ]);
}

export const sloAlertGroup: RuleGroup = { name: 'catalog-gateway-slo-burn', rules: burnAlerts() };
