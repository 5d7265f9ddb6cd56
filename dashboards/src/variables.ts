import { DatasourceVariableBuilder, QueryVariableBuilder, VariableRefresh, VariableSort } from '@grafana/grafana-foundation-sdk/dashboard';
import { DATASOURCE } from './panels.js';
import { GATEWAY, GATEWAY_IN_NAMESPACE } from './queries.js';

export const datasourceVariable = new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus');

/** A multi-select over one label of a gateway metric; "All" matches every value. */
function labelVariable(name: string, label: string, metric: string, labelName: string, selector = GATEWAY_IN_NAMESPACE) {
  const query = `label_values(${metric}{${selector}}, ${labelName})`;
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue('.*')
    .current({ text: 'All', value: '$__all' });
}

/** Namespaces running the gateway: one Prometheus may scrape several releases. */
export const namespaceVariable = labelVariable('namespace', 'Namespace', 'catalog_http_requests_total', 'namespace', GATEWAY);

export const routeVariable = labelVariable('route', 'Route', 'catalog_http_requests_total', 'route');
export const operationVariable = labelVariable('operation', 'GraphQL operation', 'catalog_graphql_operations_total', 'operation_name');
