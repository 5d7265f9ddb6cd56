// Structural checks of a Grafana dashboard JSON beyond what its TypeScript type can express:
// what Grafana needs to import it, and what keeps every query tied to the gateway's metrics.
import type * as dashboard from '@grafana/grafana-foundation-sdk/dashboard';

export const MIN_SCHEMA_VERSION = 39;
const GRID_COLUMNS = 24;
const PANEL_TYPES = new Set(['row', 'timeseries', 'stat']);
/** Variables Grafana itself provides to queries. */
const BUILTIN_VARIABLES = new Set(['__rate_interval', '__interval', '__range']);

/** Metric families the dashboard may query: the gateway's contract, its process metrics, k6, kube-state-metrics. */
export const KNOWN_METRICS = [
  'catalog_http_requests_total',
  'catalog_http_request_duration_seconds_bucket',
  'catalog_graphql_operations_total',
  'catalog_graphql_operation_duration_seconds_bucket',
  'catalog_cache_lookups_total',
  'catalog_db_pool_clients',
  'catalog_db_pool_waiting_requests',
  'catalog_db_statements_total',
  'catalog_db_replay_lag_seconds',
  'catalog_db_replay_lag_bound_seconds',
  'catalog_db_in_rotation',
  'catalog_db_target_failures_total',
  'catalog_db_replica_fallbacks_total',
  'catalog_coherence_lease_held',
  'catalog_coherence_other_protocols',
  'catalog_coherence_resets_total',
  'catalog_coherence_write_ack_wait_seconds_bucket',
  'catalog_cache_shared_stores_total',
  'catalog_dataloader_batch_size_bucket',
  'catalog_dataloader_batch_size_sum',
  'catalog_dataloader_batch_size_count',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_eventloop_lag_p99_seconds',
  'kube_deployment_status_replicas_available',
  'k6_vus',
  'k6_http_reqs_total',
  'k6_http_req_duration_p95',
];

export interface PrometheusTarget {
  refId: string;
  expr: string;
  legendFormat?: string;
  datasource?: dashboard.DataSourceRef;
}

export type QueryPanel = dashboard.Panel & { targets: PrometheusTarget[] };

/** Panels that run queries (everything but rows), in dashboard order. */
export function queryPanels(board: dashboard.Dashboard): QueryPanel[] {
  return (board.panels ?? []).filter((panel): panel is QueryPanel => panel.type !== 'row');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function overlaps(a: dashboard.GridPos, b: dashboard.GridPos): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function isPrometheusVariableRef(ref: unknown): boolean {
  return isObject(ref) && ref.type === 'prometheus' && ref.uid === '${datasource}';
}

/** Problems with the target's query: unknown variables, fixed rate windows, unknown metrics. */
function queryProblems(where: string, expr: string, variables: Set<string>): string[] {
  const problems: string[] = [];
  for (const [, name] of expr.matchAll(/\$\{?(\w+)\}?/g)) {
    if (name && !variables.has(name) && !BUILTIN_VARIABLES.has(name)) problems.push(`${where}: unknown variable $${name}`);
  }
  for (const [, window] of expr.matchAll(/\[([^\]]+)\]/g)) {
    if (window !== '$__rate_interval') problems.push(`${where}: range [${window}] should be [$__rate_interval]`);
  }
  const selectors = expr.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{/g);
  for (const [, metric] of selectors) {
    if (metric && !KNOWN_METRICS.includes(metric)) problems.push(`${where}: unknown metric ${metric}`);
  }
  return problems;
}

/**
 * Narrows parsed JSON to a Grafana dashboard, listing every problem found (empty when valid).
 */
export function validateDashboard(json: unknown): { board?: dashboard.Dashboard; problems: string[] } {
  if (!isObject(json)) return { problems: ['dashboard is not a JSON object'] };
  const problems: string[] = [];
  const board = json as unknown as dashboard.Dashboard;

  if (typeof board.schemaVersion !== 'number' || board.schemaVersion < MIN_SCHEMA_VERSION) {
    problems.push(`schemaVersion ${board.schemaVersion} is below ${MIN_SCHEMA_VERSION}`);
  }
  if (!board.uid || !board.title) problems.push('uid and title are required');

  const variables = board.templating?.list ?? [];
  const variableNames = new Set(variables.map((variable) => variable.name));
  const datasource = variables.find((variable) => variable.name === 'datasource');
  if (datasource?.type !== 'datasource' || datasource.query !== 'prometheus') {
    problems.push('needs a "datasource" variable of type datasource with query "prometheus"');
  }
  for (const variable of variables) {
    if (variable.type === 'query') {
      if (!isPrometheusVariableRef(variable.datasource)) problems.push(`variable ${variable.name}: datasource must be \${datasource}`);
      problems.push(...queryProblems(`variable ${variable.name}`, String(variable.query), variableNames));
    }
  }

  const panels = board.panels ?? [];
  if (panels.length === 0) problems.push('dashboard has no panels');
  const ids = new Set<number>();
  const placed: { title: string; grid: dashboard.GridPos }[] = [];
  for (const panel of panels) {
    const where = `panel "${panel.title ?? panel.id}"`;
    if (!Number.isInteger(panel.id) || (panel.id ?? 0) <= 0) problems.push(`${where}: id must be a positive integer`);
    else if (ids.has(panel.id!)) problems.push(`${where}: duplicate id ${panel.id}`);
    else ids.add(panel.id!);
    if (!PANEL_TYPES.has(panel.type)) problems.push(`${where}: unexpected type ${panel.type}`);

    const grid = panel.gridPos;
    if (!grid || grid.w < 1 || grid.h < 1 || grid.x < 0 || grid.y < 0 || grid.x + grid.w > GRID_COLUMNS) {
      problems.push(`${where}: gridPos ${JSON.stringify(grid)} is outside the ${GRID_COLUMNS}-column grid`);
    } else {
      const clash = placed.find((other) => overlaps(other.grid, grid));
      if (clash) problems.push(`${where}: overlaps panel "${clash.title}"`);
      placed.push({ title: panel.title ?? String(panel.id), grid });
    }
  }

  for (const panel of queryPanels(board)) {
    const where = `panel "${panel.title ?? panel.id}"`;
    if (!panel.title || !panel.description) problems.push(`${where}: needs a title and a description`);
    if (!isPrometheusVariableRef(panel.datasource)) problems.push(`${where}: datasource must be \${datasource}`);
    const targets = panel.targets ?? [];
    if (targets.length === 0) problems.push(`${where}: has no queries`);
    const refIds = new Set<string>();
    for (const target of targets) {
      if (!target.refId || refIds.has(target.refId)) problems.push(`${where}: refIds must be set and unique`);
      refIds.add(target.refId);
      if (!isPrometheusVariableRef(target.datasource)) problems.push(`${where} ${target.refId}: datasource must be \${datasource}`);
      if (typeof target.expr !== 'string' || target.expr.trim() === '') {
        problems.push(`${where} ${target.refId}: empty expr`);
        continue;
      }
      problems.push(...queryProblems(`${where} ${target.refId}`, target.expr, variableNames));
    }
  }
  return { board, problems };
}
