import { DashboardBuilder, DashboardCursorSync, RowBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';
import type { DashboardRow } from './row.js';
import { dataPathRow } from './rows/data-path.js';
import { graphqlRow } from './rows/graphql.js';
import { httpRow } from './rows/http.js';
import { k6Row } from './rows/k6.js';
import { kubernetesRow } from './rows/kubernetes.js';
import { processRow } from './rows/process.js';
import { readReplicasRow } from './rows/read-replicas.js';
import { coherenceRow } from './rows/coherence.js';
import { datasourceVariable, namespaceVariable, operationVariable, routeVariable } from './variables.js';

export const DASHBOARD_UID = 'catalog-gateway';

const ROWS: DashboardRow[] = [httpRow, graphqlRow, dataPathRow, coherenceRow, readReplicasRow, processRow, kubernetesRow, k6Row];

/** The catalog-gateway Grafana dashboard, as provisioned by the chart. */
export function buildDashboard(): dashboard.Dashboard {
  const builder = new DashboardBuilder('Catalog gateway')
    .uid(DASHBOARD_UID)
    .description('RED per route and GraphQL operation, cache, DB pool, DataLoader, processes, replicas and k6 load.')
    .tags(['catalog-gateway', 'generated'])
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .time({ from: 'now-30m', to: 'now' })
    .refresh('10s')
    .withVariable(datasourceVariable)
    .withVariable(namespaceVariable)
    .withVariable(routeVariable)
    .withVariable(operationVariable);
  for (const row of ROWS) {
    builder.withRow(new RowBuilder(row.title));
    for (const panel of row.panels) builder.withPanel(panel);
  }
  const built = builder.build();
  // The builder leaves ids unset (rows get 0); Grafana needs them unique per dashboard.
  built.panels?.forEach((panel, index) => {
    panel.id = index + 1;
  });
  return built;
}

/** The file content committed as dashboards/catalog-gateway.json. */
export function renderDashboardJson(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}
