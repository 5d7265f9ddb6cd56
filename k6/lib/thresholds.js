// Pass/fail criteria of every scenario: the gateway's SLOs. A crossed threshold makes k6 exit
// non-zero (99), so CI and `npm run loadtest` fail the run.

/** @param {{ p95Ms: number, maxErrorRate: number }} config */
export function sloThresholds(config) {
  return {
    http_req_duration: [`p(95)<${config.p95Ms}`],
    http_req_failed: [`rate<${config.maxErrorRate}`],
    // Wrong bodies count as failures too, not only wrong status codes.
    checks: [`rate>${1 - config.maxErrorRate}`],
  };
}

/**
 * Tags k6 attaches to every sample, minus `url`: with one URL per product id it would give
 * Prometheus (remote write) a series per product. The `name` tag carries the route pattern.
 */
export const SYSTEM_TAGS = ['status', 'method', 'name', 'group', 'check', 'error', 'error_code', 'scenario', 'expected_response'];

/** Trend statistics shown in the summary (and written to the JSON summary). */
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];
