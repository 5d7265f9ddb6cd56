import { SpanKind, TraceFlags, trace, type Context } from '@opentelemetry/api';
import { SamplingDecision, type Sampler, type SamplingResult } from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.js';

/** A W3C `traceparent` of version 00: version-trace id-parent span id-flags, neither id all zeros. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;
/** Index of the flags' last hex digit, whose lowest bit is "sampled". */
const SAMPLED_DIGIT = 54;

const hexDigitValue = (code: number): number => (code <= 57 ? code - 48 : code - 87);

/**
 * The one sampling decision of a request, made at the HTTP edge before anything is allocated for
 * it (OTEL_TRACES_SAMPLER and its ratio): a request the decision leaves out gets no span, no
 * context and no trace id, and runs in the root context, where the pg, ioredis, graphql and
 * dataloader instrumentations make no spans either (they require a parent span).
 */
export class EdgeSampling {
  private constructor(
    /** The `parentbased_` samplers: a caller's `traceparent` decides, when it sends a valid one. */
    private readonly followsCaller: boolean,
    private readonly ratio: number,
  ) {}

  /** `OTEL_PROPAGATORS` absent: trace context is propagated (the setting's default). */
  static of(
    config: Pick<Config, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'> & Partial<Pick<Config, 'OTEL_PROPAGATORS'>>,
  ): EdgeSampling {
    const sampler = config.OTEL_TRACES_SAMPLER;
    const ratio = sampler.endsWith('always_on') ? 1 : sampler.endsWith('always_off') ? 0 : Number(config.OTEL_TRACES_SAMPLER_ARG);
    // A caller's traceparent is its parent only where trace context is propagated at all.
    const followsCaller = sampler.startsWith('parentbased_') && (config.OTEL_PROPAGATORS?.includes('tracecontext') ?? true);
    return new EdgeSampling(followsCaller, ratio);
  }

  /** Whether to trace a request that came with this `traceparent` header (or none). */
  traces(traceparent: string | undefined): boolean {
    if (this.followsCaller && traceparent !== undefined && TRACEPARENT.test(traceparent)) {
      return (hexDigitValue(traceparent.charCodeAt(SAMPLED_DIGIT)) & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
    }
    return this.ratio >= 1 || Math.random() < this.ratio;
  }
}

/**
 * The SDK's sampler, which only carries out the edge's decisions: a server span is made only for
 * a request the edge chose to trace, and is kept; any other span is kept when its parent is and
 * dropped without one (a graphql parse at start-up, say, is no trace of its own).
 */
export class EdgeDecidedSampler implements Sampler {
  shouldSample(parentContext: Context, _traceId: string, _spanName: string, kind: SpanKind): SamplingResult {
    if (kind === SpanKind.SERVER) return { decision: SamplingDecision.RECORD_AND_SAMPLED };
    const parent = trace.getSpanContext(parentContext);
    const parentSampled = parent !== undefined && (parent.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
    return { decision: parentSampled ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD };
  }

  toString(): string {
    return 'EdgeDecidedSampler';
  }
}
