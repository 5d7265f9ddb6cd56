import { timeseriesPanel } from '../panels.js';
import { RATE_WINDOW } from '../queries.js';
import type { DashboardRow } from '../row.js';

/** Fed by k6's Prometheus remote write (`npm run loadtest -- … --prometheus-url …`). */
export const k6Row: DashboardRow = {
  title: 'k6 load test (remote write)',
  panels: [
    timeseriesPanel({
      title: 'k6 virtual users',
      description: 'Virtual users k6 runs right now.',
      unit: 'short',
      queries: [{ expr: 'sum(k6_vus)', legend: 'VUs' }],
    }),
    timeseriesPanel({
      title: 'k6 request rate',
      description: 'Requests per second k6 sent, as k6 counts them (compare with the gateway request rate).',
      unit: 'reqps',
      queries: [{ expr: `sum(rate(k6_http_reqs_total[${RATE_WINDOW}]))`, legend: 'requests/s' }],
    }),
    timeseriesPanel({
      title: 'k6 request duration p95',
      description: 'p95 request duration as the client sees it (network and queueing included).',
      unit: 's',
      queries: [{ expr: 'max(k6_http_req_duration_p95)', legend: 'p95' }],
    }),
  ],
};
