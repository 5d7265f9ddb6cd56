import { statPanel, timeseriesPanel } from '../panels.js';
import type { DashboardRow } from '../row.js';

const AVAILABLE_REPLICAS = 'sum(kube_deployment_status_replicas_available{deployment=~".*gateway.*"})';

/** Fed by kube-state-metrics inside the cluster; empty when the gateway runs outside Kubernetes. */
export const kubernetesRow: DashboardRow = {
  title: 'Kubernetes',
  panels: [
    statPanel({
      title: 'Available replicas',
      description: 'Gateway pods the Deployment reports available (kube-state-metrics).',
      unit: 'short',
      width: 6,
      queries: [{ expr: AVAILABLE_REPLICAS, legend: 'available' }],
    }),
    timeseriesPanel({
      title: 'Available replicas over time',
      description: 'Gateway pods available, to line scaling events up with load (kube-state-metrics).',
      unit: 'short',
      width: 18,
      queries: [{ expr: AVAILABLE_REPLICAS, legend: 'available' }],
    }),
  ],
};
