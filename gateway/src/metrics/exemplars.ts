import type { Histogram, LabelValues } from 'prom-client';
import { traceExemplar } from '../telemetry/request-spans.js';
import { activeTracer } from '../telemetry/tracing.js';

/** A traced request's ids on a histogram observation (OpenMetrics exemplar: links a bucket to a trace). */
export type TraceExemplar = NonNullable<ReturnType<typeof traceExemplar>>;

/**
 * Whether the latency histograms keep exemplars: while tracing is on. prom-client's `observe` of
 * such a histogram takes one argument object; `observeDuration` below spares the requests without
 * an exemplar that allocation.
 */
export const exemplarsKept = (): boolean => activeTracer() !== undefined;

/** prom-client's observation without an exemplar, under its own name on a histogram that keeps them. */
interface HistogramKeepingExemplars<T extends string> {
  observeWithoutExemplar(labels: LabelValues<T>, value: number): void;
}

/** The request being handled's exemplar: its trace and span ids when it is traced. */
export const requestExemplar = traceExemplar;

/**
 * Observes a duration, with an exemplar when the request it measures was traced
 * (`requestExemplar()` while it runs; the hits recorded in batches keep theirs until then).
 */
export function observeDuration<T extends string>(
  histogram: Histogram<T>,
  labels: LabelValues<T>,
  seconds: number,
  exemplar: TraceExemplar | undefined,
): void {
  // prom-client types exemplar labels as the metric's own labels; any labels are accepted.
  if (exemplar) histogram.observe({ labels, value: seconds, exemplarLabels: exemplar as LabelValues<string> as LabelValues<T> });
  else if (exemplarsKept()) (histogram as unknown as HistogramKeepingExemplars<T>).observeWithoutExemplar(labels, seconds);
  else histogram.observe(labels, seconds);
}
