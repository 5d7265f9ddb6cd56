// The one way tests and benchmarks read a gateway's metrics: from its metrics listener
// (METRICS_PORT), which is not the public port.

/** Something with a metrics listener: an in-process gateway (`app.metricsUrl`) or a started target. */
export interface HasMetricsUrl {
  readonly metricsUrl: string;
}

/** GET /metrics from the metrics listener; a non-2xx answer throws, naming the URL. */
export async function scrapeMetrics(target: string | HasMetricsUrl, headers: Record<string, string> = {}): Promise<string> {
  const url = typeof target === 'string' ? target : target.metricsUrl;
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

/** A series' value in the /metrics text, 0 when absent. */
export function metricValue(metrics: string, series: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.split(' ')[1]) : 0;
}
