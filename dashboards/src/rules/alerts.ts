// Per-route, per-operation and resource alerts, on top of the service-wide burn-rate alerts.
import { GATEWAY } from '../queries.js';
import { ERROR_BUDGET, LATENCY_THRESHOLD_SECONDS } from './slo.js';
import type { RuleGroup } from './types.js';

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
    {
      alert: 'CatalogGatewayRouteErrorRateHigh',
      expr: `route:catalog_http_server_errors:ratio_rate5m > ${ERROR_BUDGET}`,
      for: '10m',
      labels: { severity: 'warning', slo: 'availability' },
      annotations: {
        summary: 'Route {{ $labels.route }} fails more than 1 % of requests',
        description: '{{ $value | humanizePercentage }} of {{ $labels.route }} requests answered 5xx over the last 5 minutes (SLO: under 1 %).',
      },
    },
    {
      alert: 'CatalogGatewayRouteLatencyP95High',
      expr: `route:catalog_http_request_duration_seconds:p95_rate5m > ${LATENCY_THRESHOLD_SECONDS}`,
      for: '10m',
      labels: { severity: 'warning', slo: 'latency' },
      annotations: {
        summary: 'Route {{ $labels.route }} p95 latency is over 50 ms',
        description: 'p95 of {{ $labels.route }} has been {{ $value | humanizeDuration }} over the last 5 minutes (SLO: under 50 ms).',
      },
    },
    {
      alert: 'CatalogGatewayGraphqlErrorRateHigh',
      expr: `operation:catalog_graphql_operation_errors:ratio_rate5m > ${ERROR_BUDGET}`,
      for: '10m',
      labels: { severity: 'warning', slo: 'availability' },
      annotations: {
        summary: 'GraphQL operation {{ $labels.operation_name }} fails more than 1 %',
        description: '{{ $value | humanizePercentage }} of {{ $labels.operation_name }} operations returned errors over the last 5 minutes (SLO: under 1 %).',
      },
    },
    {
      alert: 'CatalogGatewayGraphqlLatencyP95High',
      expr: `operation:catalog_graphql_operation_duration_seconds:p95_rate5m > ${LATENCY_THRESHOLD_SECONDS}`,
      for: '10m',
      labels: { severity: 'warning', slo: 'latency' },
      annotations: {
        summary: 'GraphQL operation {{ $labels.operation_name }} p95 is over 50 ms',
        description: 'p95 of {{ $labels.operation_name }} has been {{ $value | humanizeDuration }} over the last 5 minutes (SLO: under 50 ms).',
      },
    },
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
