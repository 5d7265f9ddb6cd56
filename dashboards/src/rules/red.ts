// Recording rules: RED per REST route and per GraphQL operation over 5 minutes.
import { GATEWAY, SERVED_ROUTES } from '../queries.js';
import type { RecordingRule, RuleGroup } from './types.js';

const QUANTILES = [0.5, 0.95, 0.99];

/**
 * Rate, error ratios and latency quantiles of one counter + histogram pair, per `by` labels.
 * Error ratios read 0 rather than vanish while nothing fails ("or … * 0").
 */
function redRules(spec: {
  level: string;
  by: string[];
  counter: string;
  requests: string;
  histogram: string;
  selector: string;
  errorRatios: Record<string, string>;
}): RecordingRule[] {
  const by = ['job', ...spec.by].join(', ');
  const rate = `${spec.level}:${spec.requests}:rate5m`;
  const buckets = `${spec.level}:${spec.histogram}_bucket:rate5m`;
  return [
    { record: rate, expr: `sum by (${by}) (rate(${spec.counter}{${spec.selector}}[5m]))` },
    ...Object.entries(spec.errorRatios).map(([name, matching]) => ({
      record: `${spec.level}:${name}:ratio_rate5m`,
      expr: `(sum by (${by}) (rate(${spec.counter}{${spec.selector}, ${matching}}[5m])) or ${rate} * 0) / ${rate}`,
    })),
    { record: buckets, expr: `sum by (${by}, le) (rate(${spec.histogram}_bucket{${spec.selector}}[5m]))` },
    ...QUANTILES.map((q) => ({
      record: `${spec.level}:${spec.histogram}:p${Math.round(q * 100)}_rate5m`,
      expr: `histogram_quantile(${q}, ${buckets})`,
    })),
  ];
}

export const httpRedGroup: RuleGroup = {
  name: 'catalog-gateway-http-red',
  rules: redRules({
    level: 'route',
    by: ['route'],
    counter: 'catalog_http_requests_total',
    requests: 'catalog_http_requests',
    histogram: 'catalog_http_request_duration_seconds',
    selector: SERVED_ROUTES,
    errorRatios: {
      catalog_http_server_errors: 'status_code=~"5.."',
      catalog_http_client_errors: 'status_code=~"4.."',
    },
  }),
};

export const graphqlRedGroup: RuleGroup = {
  name: 'catalog-gateway-graphql-red',
  rules: redRules({
    level: 'operation',
    by: ['operation_name', 'operation_type'],
    counter: 'catalog_graphql_operations_total',
    requests: 'catalog_graphql_operations',
    histogram: 'catalog_graphql_operation_duration_seconds',
    selector: GATEWAY,
    errorRatios: { catalog_graphql_operation_errors: 'outcome="error"' },
  }),
};
