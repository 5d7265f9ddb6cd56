import { latencyQuantilesPanel, timeseriesPanel } from '../panels.js';
import { ratio, SERVED_HTTP, sumRate } from '../queries.js';
import type { DashboardRow } from '../row.js';

const REQUESTS = 'catalog_http_requests_total';
const DURATION = 'catalog_http_request_duration_seconds';
const BY_ROUTE = ['route'];

export const httpRow: DashboardRow = {
  title: 'HTTP routes (REST and /graphql): rate, errors, duration',
  panels: [
    timeseriesPanel({
      title: 'Request rate by route',
      description: 'Requests per second the gateway answered, per Fastify route pattern.',
      unit: 'reqps',
      queries: [{ expr: sumRate(REQUESTS, SERVED_HTTP, BY_ROUTE), legend: '{{route}}' }],
    }),
    timeseriesPanel({
      title: '5xx error rate by route',
      description: 'Share of requests answered with a 5xx status (server-side failures; SLO: under 1 %).',
      unit: 'percentunit',
      queries: [{ expr: ratio(REQUESTS, SERVED_HTTP, 'status_code=~"5.."', BY_ROUTE), legend: '{{route}}' }],
    }),
    timeseriesPanel({
      title: '4xx error rate by route',
      description: 'Share of requests rejected with a 4xx status (bad input, unknown ids, missing auth).',
      unit: 'percentunit',
      queries: [{ expr: ratio(REQUESTS, SERVED_HTTP, 'status_code=~"4.."', BY_ROUTE), legend: '{{route}}' }],
    }),
    latencyQuantilesPanel({
      title: 'Latency p50 / p95 / p99 by route',
      description: 'Request duration quantiles from the histogram (SLO: p95 under 50 ms).',
      width: 24,
      histogram: DURATION,
      selector: SERVED_HTTP,
      by: 'route',
    }),
  ],
};
