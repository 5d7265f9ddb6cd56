import {
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DATASOURCE } from './panels.js';
import { GATEWAY } from './queries.js';

export const datasourceVariable = new DatasourceVariableBuilder('datasource')
  .label('Data source')
  .type('prometheus');

/** A multi-select over one label of a gateway metric; "All" matches every value. */
function labelVariable(name: string, label: string, metric: string, labelName: string) {
  const query = `label_values(${metric}{${GATEWAY}}, ${labelName})`;
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

export const routeVariable = labelVariable('route', 'Route', 'catalog_http_requests_total', 'route');
export const operationVariable = labelVariable(
  'operation',
  'GraphQL operation',
  'catalog_graphql_operations_total',
  'operation_name',
);
