import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { noteCacheOutcome } from './request-spans.js';
import { activeTracer, requestSpan } from './tracing.js';

/** A response cache lookup's span: one per lookup catalog_cache_lookups_total counts, in a traced request. */
export const CACHE_LOOKUP_SPAN = 'catalog.cache.lookup';
export const ATTR_CACHE_BACKEND = 'catalog.cache.backend';
export const ATTR_CACHE_RESULT = 'catalog.cache.result';

type Backend = 'memory' | 'redis';
type Result = 'hit' | 'miss';

/**
 * A lookup the cache counted (metrics/cache-hit-recorder.ts), in a traced request: the request's
 * cache outcome, and for the in-process cache a lookup span of its own (it takes a microsecond:
 * the span marks that it happened and what it found). Redis lookups get theirs from
 * `traceRedisLookup`, around the round trip.
 */
export function traceCacheLookup(backend: Backend, result: Result): void {
  if (!requestSpan()) return;
  noteCacheOutcome(result === 'miss' ? 'miss' : backend === 'memory' ? 'memory_hit' : 'redis_hit');
  if (backend === 'memory') {
    activeTracer()!
      .startSpan(CACHE_LOOKUP_SPAN, { attributes: { [ATTR_CACHE_BACKEND]: backend, [ATTR_CACHE_RESULT]: result } })
      .end();
  }
}

/**
 * `lookup()` (Redis's copy of a response), under a lookup span in a traced request: the Redis
 * command's span (ioredis instrumentation) is its child. Untraced, it is the call itself.
 */
export function traceRedisLookup<Entry>(lookup: () => Promise<Entry | undefined>): Promise<Entry | undefined> {
  const tracer = activeTracer();
  if (!tracer || !requestSpan()) return lookup();
  const span = tracer.startSpan(CACHE_LOOKUP_SPAN, { attributes: { [ATTR_CACHE_BACKEND]: 'redis' } });
  return context.with(trace.setSpan(context.active(), span), lookup).then(
    (entry) => {
      span.setAttribute(ATTR_CACHE_RESULT, entry === undefined ? 'miss' : 'hit');
      span.end();
      return entry;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
      throw error;
    },
  );
}
