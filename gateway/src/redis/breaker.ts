import CircuitBreaker from 'opossum';
import type { Logger } from 'pino';

export type CircuitState = 'closed' | 'open' | 'halfOpen';

/** What Redis's failures and circuit are reported into (the metrics, given by app.ts). */
export interface RedisReport {
  /** An operation failed at Redis (not refused by the open circuit). */
  failed(operation: string): void;
  circuit(state: CircuitState): void;
  /** A call the open circuit refused. */
  rejected(): void;
}

/** Whether an error is the breaker refusing a call (Redis was not asked at all). */
export const isCircuitOpen = (error: unknown): boolean => (error as { code?: unknown })?.code === 'EOPENBREAKER';

/** Counts and logs a failed Redis operation (get, set, subscribe, renew, …; apq_get and apq_set for persisted queries). */
export type RedisFailureReport = (operation: string, error: unknown) => void;

export function redisFailureReport(report: RedisReport, logger: Logger): RedisFailureReport {
  return (operation, error) => {
    // Calls the open circuit refused never reached Redis: counted as rejections instead.
    if (isCircuitOpen(error)) return;
    report.failed(operation);
    logger.debug({ err: error, operation }, 'redis cache operation failed');
  };
}

/**
 * Every Redis call on a request's path (cache lookups and stores, persisted queries) goes through
 * one circuit breaker (opossum). Each call is bounded by the connection's command timeout; once
 * half of the recent calls (at least 5) failed, the circuit opens and calls fail at once, so a
 * stalled Redis costs requests nothing: they are served from Postgres. After `resetMs` one call probes
 * Redis (half-open): success closes the circuit, failure opens it again.
 */
export class RedisBreaker {
  private readonly breaker: CircuitBreaker<[() => Promise<unknown>], unknown>;

  constructor(report: RedisReport, logger: Logger, resetMs = 1_000) {
    this.breaker = new CircuitBreaker((call: () => Promise<unknown>) => call(), {
      timeout: false, // the Redis connection's commandTimeout bounds each call
      errorThresholdPercentage: 50,
      volumeThreshold: 5,
      rollingCountTimeout: 10_000,
      resetTimeout: resetMs,
      // Only counts decide; latency percentiles (every call's latency kept, sorted for each
      // snapshot) and the snapshot a second would cost the Redis hit path for nothing read.
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
    });
    report.circuit('closed');
    this.breaker.on('open', () => {
      report.circuit('open');
      logger.warn('redis circuit open: serving without Redis, probing it every second');
    });
    this.breaker.on('halfOpen', () => report.circuit('halfOpen'));
    this.breaker.on('close', () => {
      report.circuit('closed');
      logger.info('redis circuit closed: Redis answers again');
    });
    this.breaker.on('reject', () => report.rejected());
  }

  run<T>(call: () => Promise<T>): Promise<T> {
    return this.breaker.fire(call) as Promise<T>;
  }

  shutdown(): void {
    this.breaker.shutdown();
  }
}
