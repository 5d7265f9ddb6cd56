// handleSummary without remote jslib: a short text summary on stdout and, when SUMMARY_FILE is
// set (the runner sets it), the full summary data as JSON.

const ms = (value) => (value === undefined ? 'n/a' : `${value.toFixed(1)} ms`);

/** @param {any} data k6's end-of-test summary data */
export function textSummary(data) {
  const metrics = data.metrics;
  const requests = metrics.http_reqs?.values;
  const duration = metrics.http_req_duration?.values ?? {};
  const failed = metrics.http_req_failed?.values;
  const checks = metrics.checks?.values;
  const lines = [
    '',
    `  requests ........ ${requests?.count ?? 0} (${(requests?.rate ?? 0).toFixed(1)}/s)`,
    `  duration ........ p50 ${ms(duration.med)}  p95 ${ms(duration['p(95)'])}  p99 ${ms(duration['p(99)'])}  max ${ms(duration.max)}`,
    `  failed .......... ${((failed?.rate ?? 0) * 100).toFixed(2)} %`,
    `  checks passed ... ${((checks?.rate ?? 0) * 100).toFixed(2)} %`,
    `  dropped ......... ${metrics.dropped_iterations?.values.count ?? 0} iterations (not enough VUs for the asked rate)`,
    '  thresholds:',
  ];
  for (const [metric, { thresholds }] of Object.entries(metrics)) {
    for (const [expression, result] of Object.entries(thresholds ?? {})) {
      lines.push(`    ${result.ok ? 'PASS' : 'FAIL'}  ${metric} ${expression}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Shared `handleSummary` of every scenario. */
export function summaryOutputs(data, summaryFile) {
  const outputs = { stdout: textSummary(data) };
  if (summaryFile) outputs[summaryFile] = JSON.stringify(data, null, 2);
  return outputs;
}
