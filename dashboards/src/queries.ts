// PromQL building blocks shared by the dashboard rows. Every rate window is Grafana's
// `$__rate_interval`, so panels stay correct at any scrape interval and zoom level.

/** The gateway's Prometheus scrape job (fixed by the chart's scrape config). */
export const GATEWAY_JOB = 'catalog-gateway';

export const GATEWAY = `job="${GATEWAY_JOB}"`;
/**
 * The gateway as the dashboard shows it: narrowed to the namespaces picked in its `namespace`
 * variable, so several releases scraped by one Prometheus stay apart. (Rules keep GATEWAY.)
 */
export const GATEWAY_IN_NAMESPACE = `${GATEWAY}, namespace=~"$namespace"`;
/** Traffic the gateway serves: every route but the probe and scrape endpoints. */
export const SERVED_ROUTES = `${GATEWAY}, route!~"/metrics|/healthz|/readyz"`;
/** Served traffic narrowed to the routes picked in the dashboard's `route` variable. */
export const SERVED_HTTP = `${SERVED_ROUTES}, namespace=~"$namespace", route=~"$route"`;
export const GRAPHQL_OPERATIONS = `${GATEWAY_IN_NAMESPACE}, operation_name=~"$operation"`;

export const RATE_WINDOW = '$__rate_interval';

export function sumRate(metric: string, selector: string, by: string[]): string {
  return `sum by (${by.join(', ')}) (rate(${metric}{${selector}}[${RATE_WINDOW}]))`;
}

/**
 * Share of `metric` matching `matching` within its `by` group. When nothing matched yet the
 * ratio is 0 rather than absent, so "no errors" shows as 0 % instead of "No data".
 */
export function ratio(metric: string, selector: string, matching: string, by: string[]): string {
  const all = sumRate(metric, selector, by);
  const matched = sumRate(metric, `${selector}, ${matching}`, by);
  return `(${matched} or ${all} * 0) / ${all}`;
}

export function quantile(q: number, histogram: string, selector: string, by: string[]): string {
  return `histogram_quantile(${q}, ${sumRate(`${histogram}_bucket`, selector, ['le', ...by])})`;
}

/** Mean observed value of a histogram (e.g. the average DataLoader batch). */
export function mean(histogram: string, selector: string, by: string[]): string {
  return `${sumRate(`${histogram}_sum`, selector, by)} / ${sumRate(`${histogram}_count`, selector, by)}`;
}
