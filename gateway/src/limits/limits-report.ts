import type { ClientPolicy } from './limit-policies.js';
import type { PolicyName } from './ratelimit-fields.js';

/**
 * What the rate limits report (metrics/metrics.ts turns it into metrics). Labels are bounded: a
 * client's class and configured name, never a key, token or address.
 */
export interface LimitsReport {
  /** A request refused with 429: the client was over `policy`. */
  limited(labels: ClientPolicy['labels'], policy: PolicyName): void;
  /** A sync of this replica's counts with Redis: ok, failed (Redis did not answer or refused), skipped (circuit open). */
  synced(result: 'ok' | 'failed' | 'skipped'): void;
  /** How many clients this replica counts in the current window, read whenever metrics are collected. */
  counting(clients: () => number): void;
}
