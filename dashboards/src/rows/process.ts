import { timeseriesPanel } from '../panels.js';
import { GATEWAY_IN_NAMESPACE, RATE_WINDOW } from '../queries.js';
import type { DashboardRow } from '../row.js';

export const processRow: DashboardRow = {
  title: 'Gateway processes',
  panels: [
    timeseriesPanel({
      title: 'CPU per instance',
      description: 'CPU cores used by each gateway process (user + system).',
      unit: 'short',
      queries: [
        { expr: `sum by (instance) (rate(process_cpu_seconds_total{${GATEWAY_IN_NAMESPACE}}[${RATE_WINDOW}]))`, legend: '{{instance}}' },
      ],
    }),
    timeseriesPanel({
      title: 'Memory per instance',
      description: 'Resident set size and V8 heap in use of each gateway process.',
      unit: 'bytes',
      queries: [
        { expr: `sum by (instance) (process_resident_memory_bytes{${GATEWAY_IN_NAMESPACE}})`, legend: '{{instance}} RSS' },
        { expr: `sum by (instance) (nodejs_heap_size_used_bytes{${GATEWAY_IN_NAMESPACE}})`, legend: '{{instance}} heap used' },
      ],
    }),
    timeseriesPanel({
      title: 'Event-loop lag p99 per instance',
      description: 'How late the Node.js event loop runs scheduled work; high values mean a CPU-starved process.',
      unit: 's',
      queries: [{ expr: `max by (instance) (nodejs_eventloop_lag_p99_seconds{${GATEWAY_IN_NAMESPACE}})`, legend: '{{instance}}' }],
    }),
  ],
};
