import { createContextKey, type Context, type ContextManager, type Span, type Tracer } from '@opentelemetry/api';
import type { EdgeSampling } from './sampling.js';

/**
 * The gateway's tracer, set by `startTracing` before the gateway's modules load (cli.ts), and
 * only when tracing is on. Every hook in this folder returns at once while it is undefined, so
 * tracing off costs a comparison per hook and allocates nothing.
 */
let gatewayTracer: Tracer | undefined;
let edgeSampling: EdgeSampling | undefined;
/**
 * The SDK's context manager, asked directly: the API's `context.active()` finds it through a
 * versioned global on every call, and the hooks here ask on every request, traced or not.
 */
let contexts: ContextManager | undefined;

export function useTracer(tracer: Tracer, sampling: EdgeSampling, contextManager: ContextManager): void {
  gatewayTracer = tracer;
  edgeSampling = sampling;
  contexts = contextManager;
}

/** The tracer, when tracing is on. */
export const activeTracer = (): Tracer | undefined => gatewayTracer;

/** Which requests are traced, when tracing is on. */
export const activeSampling = (): EdgeSampling | undefined => edgeSampling;

/** The context the caller runs in, when tracing is on (what `context.active()` returns, found faster). */
export const activeContext = (): Context | undefined => contexts?.active();

/** Where a traced request's context holds its server span (the trace's root in this process). */
export const REQUEST_SPAN = createContextKey('catalog-gateway request span');

/**
 * The span of the traced request being handled, if any: undefined when tracing is off and for
 * every request the sampler left out (they run in the root context, and so does everything they
 * call: no instrumentation makes spans for them).
 */
export function requestSpan(): Span | undefined {
  return contexts?.active().getValue(REQUEST_SPAN) as Span | undefined;
}
