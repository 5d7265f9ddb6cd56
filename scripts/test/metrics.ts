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

/** A Prometheus histogram's cumulative buckets: upper bound in seconds (Infinity for `+Inf`) → count. */
export type HistogramBuckets = Map<number, number>;

/**
 * The cumulative buckets of histogram `name` in one or more /metrics texts (several gateways'),
 * summed over every series whose labels include `labels` (`target="…"`; all series when omitted).
 */
export function histogramBuckets(metrics: string | readonly string[], name: string, labels = ''): HistogramBuckets {
  const buckets: HistogramBuckets = new Map();
  for (const text of typeof metrics === 'string' ? [metrics] : metrics) {
    for (const [, series, count] of text.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)`, 'gm'))) {
      if (!series!.includes(labels)) continue;
      const le = /le="([^"]+)"/.exec(series!)![1];
      const bound = le === '+Inf' ? Infinity : Number(le);
      buckets.set(bound, (buckets.get(bound) ?? 0) + Number(count));
    }
  }
  return buckets;
}

/** What was observed between two scrapes of the same histogram: `after` less `before`, bucket by bucket. */
export function bucketsSince(before: HistogramBuckets, after: HistogramBuckets): HistogramBuckets {
  return new Map([...after].map(([bound, count]) => [bound, count - (before.get(bound) ?? 0)]));
}

/** Observations in the buckets (the `+Inf` bucket's count). */
export function histogramCount(buckets: HistogramBuckets): number {
  return Math.max(0, ...buckets.values());
}

/**
 * The q-quantile (0 < q ≤ 1) in seconds, interpolated linearly within its bucket as Prometheus's
 * histogram_quantile does (a quantile in the `+Inf` bucket is the highest finite bound);
 * undefined when nothing was observed.
 */
export function histogramQuantile(buckets: HistogramBuckets, q: number): number | undefined {
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = histogramCount(buckets);
  if (total === 0) return undefined;
  const rank = q * total;
  let [lower, below] = [0, 0];
  for (const [bound, count] of sorted) {
    if (count >= rank) {
      if (bound === Infinity) return lower;
      return lower + ((bound - lower) * (rank - below)) / Math.max(count - below, 1);
    }
    [lower, below] = [bound, count];
  }
  return lower;
}
