// Per-route, per-operation and resource alerts, on top of the service-wide burn-rate alerts.
import { GATEWAY } from '../queries.js';
import { ERROR_BUDGET, LATENCY_THRESHOLD_SECONDS } from './slo.js';
import type { AlertingRule, RuleGroup } from './types.js';

/** The two SLOs checked on one unit (a route, a GraphQL operation) from its 5m recording rules. */
function unitSloAlerts(unit: {
  alertPrefix: string;
  /** Human name with the unit's label, e.g. "Route {{ $labels.route }}". */
  name: string;
  label: string;
  /** What the unit serves: "requests", "operations". */
  noun: string;
  errorRatio: string;
  failedWhat: string;
  p95: string;
}): AlertingRule[] {
  return [
    {
      alert: `${unit.alertPrefix}ErrorRateHigh`,
      expr: `${unit.errorRatio} > ${ERROR_BUDGET}`,
      for: '10m',
      labels: { severity: 'warning', slo: 'availability' },
      annotations: {
        summary: `${unit.name} fails more than 1 % of ${unit.noun}`,
        description: `{{ $value | humanizePercentage }} of {{ $labels.${unit.label} }} ${unit.failedWhat} over the last 5 minutes (SLO: under 1 %).`,
      },
    },
    {
      alert: `${unit.alertPrefix}LatencyP95High`,
      expr: `${unit.p95} > ${LATENCY_THRESHOLD_SECONDS}`,
      for: '10m',
      labels: { severity: 'warning', slo: 'latency' },
      annotations: {
        summary: `${unit.name} p95 latency is over 50 ms`,
        description: `p95 of {{ $labels.${unit.label} }} has been {{ $value | humanizeDuration }} over the last 5 minutes (SLO: under 50 ms).`,
      },
    },
  ];
}

export const componentAlertGroup: RuleGroup = {
  name: 'catalog-gateway-alerts',
  rules: [
    {
      alert: 'CatalogGatewayTargetDown',
      expr: `up{${GATEWAY}} == 0`,
      for: '2m',
      labels: { severity: 'critical' },
      annotations: {
        summary: 'Prometheus cannot scrape gateway {{ $labels.instance }}',
        description: 'The catalog-gateway target {{ $labels.instance }} has been down for 2 minutes.',
      },
    },
    ...unitSloAlerts({
      alertPrefix: 'CatalogGatewayRoute',
      name: 'Route {{ $labels.route }}',
      label: 'route',
      noun: 'requests',
      errorRatio: 'route:catalog_http_server_errors:ratio_rate5m',
      failedWhat: 'requests answered 5xx',
      p95: 'route:catalog_http_request_duration_seconds:p95_rate5m',
    }),
    ...unitSloAlerts({
      alertPrefix: 'CatalogGatewayGraphql',
      name: 'GraphQL operation {{ $labels.operation_name }}',
      label: 'operation_name',
      noun: 'operations',
      errorRatio: 'operation:catalog_graphql_operation_errors:ratio_rate5m',
      failedWhat: 'operations returned errors',
      p95: 'operation:catalog_graphql_operation_duration_seconds:p95_rate5m',
    }),
    {
      alert: 'CatalogGatewayDbPoolSaturated',
      expr: `max by (job, instance) (catalog_db_pool_waiting_requests{${GATEWAY}}) > 0`,
      for: '5m',
      labels: { severity: 'warning' },
      annotations: {
        summary: 'Gateway {{ $labels.instance }} queues requests for database clients',
        description: '{{ $value }} requests have waited for a pooled Postgres client for 5 minutes; raise DB_POOL_MAX or add replicas.',
      },
    },
  ],
};
