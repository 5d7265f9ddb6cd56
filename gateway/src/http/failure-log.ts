import type { Logger } from 'pino';

/** How often repeated failures are summarised, by default. */
export const FAILURE_SUMMARY_MS = 10_000;

/**
 * Logs request failures without flooding: the first failure of a kind (status, error class and
 * message with numbers blanked) is logged with its stack; repeats are counted and summarised in
 * one line per interval. A kind quiet for a whole interval is forgotten, so its next occurrence
 * shows its stack again. (An outage used to write a stack per 503: 92 MB in 12 s.)
 */
export class FailureLog {
  private readonly repeats = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = FAILURE_SUMMARY_MS,
  ) {
    this.timer = setInterval(() => this.summarise(), intervalMs);
    this.timer.unref();
  }

  failed(status: number, error: Error, context: Record<string, unknown>): void {
    const kind = `${status} ${error.name}: ${error.message.replace(/\d+/g, 'N')}`;
    const repeats = this.repeats.get(kind);
    if (repeats !== undefined) {
      this.repeats.set(kind, repeats + 1);
      return;
    }
    this.repeats.set(kind, 0);
    const level = status === 503 ? 'warn' : 'error';
    this.logger[level]({ ...context, err: error }, `request failed: ${kind} (repeats are summarised every ${this.intervalMs / 1_000} s)`);
  }

  private summarise(): void {
    for (const [kind, count] of this.repeats) {
      if (count === 0) {
        this.repeats.delete(kind);
        continue;
      }
      this.logger.warn({ kind, count, seconds: this.intervalMs / 1_000 }, `request failed ${count} more times: ${kind}`);
      this.repeats.set(kind, 0);
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.summarise();
  }
}
