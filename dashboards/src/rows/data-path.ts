import { timeseriesPanel } from '../panels.js';
import { GATEWAY_IN_NAMESPACE, mean, quantile, ratio } from '../queries.js';
import type { DashboardRow } from '../row.js';

const BATCH_SIZE = 'catalog_dataloader_batch_size';

export const dataPathRow: DashboardRow = {
  title: 'Cache, database pool, DataLoader',
  panels: [
    timeseriesPanel({
      title: 'Cache hit ratio',
      description: 'Share of response-cache lookups served from the cache, per backend (redis or memory).',
      unit: 'percentunit',
      queries: [{ expr: ratio('catalog_cache_lookups_total', GATEWAY_IN_NAMESPACE, 'result="hit"', ['backend']), legend: '{{backend}}' }],
    }),
    timeseriesPanel({
      title: 'DB pool: clients in use and waiting requests',
      description: 'Pool saturation: clients busy out of the pool, and requests queued for a client (should stay 0).',
      unit: 'short',
      queries: [
        { expr: `sum by (state) (catalog_db_pool_clients{${GATEWAY_IN_NAMESPACE}, state=~"in_use|total"})`, legend: 'clients {{state}}' },
        { expr: `sum(catalog_db_pool_waiting_requests{${GATEWAY_IN_NAMESPACE}})`, legend: 'waiting requests' },
      ],
    }),
    timeseriesPanel({
      title: 'DataLoader batch size',
      description: 'Keys per batched database query, per loader: mean and p95. Batches of 1 mean no batching.',
      unit: 'short',
      queries: [
        { expr: mean(BATCH_SIZE, GATEWAY_IN_NAMESPACE, ['loader']), legend: '{{loader}} mean' },
        { expr: quantile(0.95, BATCH_SIZE, GATEWAY_IN_NAMESPACE, ['loader']), legend: '{{loader}} p95' },
      ],
    }),
  ],
};
