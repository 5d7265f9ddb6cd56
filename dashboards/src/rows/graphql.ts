import { latencyQuantilesPanel, timeseriesPanel } from '../panels.js';
import { GRAPHQL_OPERATIONS, ratio, sumRate } from '../queries.js';
import type { DashboardRow } from '../row.js';

const OPERATIONS = 'catalog_graphql_operations_total';
const DURATION = 'catalog_graphql_operation_duration_seconds';
const BY_OPERATION = ['operation_name'];

export const graphqlRow: DashboardRow = {
  title: 'GraphQL operations: rate, errors, duration',
  panels: [
    timeseriesPanel({
      title: 'Operation rate by operation',
      description: 'GraphQL operations executed per second, by operation name (anonymous ones as "anonymous").',
      unit: 'ops',
      queries: [{ expr: sumRate(OPERATIONS, GRAPHQL_OPERATIONS, BY_OPERATION), legend: '{{operation_name}}' }],
    }),
    timeseriesPanel({
      title: 'Operation error rate by operation',
      description: 'Share of operations whose response carried errors (SLO: under 1 %).',
      unit: 'percentunit',
      queries: [
        {
          expr: ratio(OPERATIONS, GRAPHQL_OPERATIONS, 'outcome="error"', BY_OPERATION),
          legend: '{{operation_name}}',
        },
      ],
    }),
    latencyQuantilesPanel({
      title: 'Operation latency p50 / p95 / p99',
      description: 'GraphQL operation duration quantiles from the histogram (SLO: p95 under 50 ms).',
      histogram: DURATION,
      selector: GRAPHQL_OPERATIONS,
      by: 'operation_name',
    }),
  ],
};
