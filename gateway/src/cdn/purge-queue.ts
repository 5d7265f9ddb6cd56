import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { PurgeTarget } from './purge-target.js';
import { EVERY_CATALOG_READ_TAG } from './surrogate-keys.js';

/** What a queue reports into (metrics/metrics.ts), by its target's name. */
export interface PurgeQueueReports {
  /** Tags waiting (a pending purge of everything counts one). */
  depth(target: string, tags: number): void;
  request(target: string, result: 'sent' | 'failed'): void;
  /** From the first request for a purge to the target taking it. */
  latency(target: string, seconds: number): void;
  overflow(target: string): void;
}

export interface PurgeQueueOptions {
  /** Most distinct tags waiting; past it, one purge of everything replaces them. */
  maxTags: number;
  /** Longest wait for one request. */
  timeoutMs: number;
  /** First pause after a failure; doubled after each further one, up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  reports: PurgeQueueReports;
  logger: Logger;
}

/** One request's worth of purging taken off the queue, and when each part was first asked for. */
interface Batch {
  everything: boolean;
  tags: string[];
  since: number[];
}

/**
 * The purges one target still owes, coalesced: a tag asked for again while it waits is one tag,
 * and a purge of everything swallows every tag. One request at a time, in batches of the target's
 * limit; a failed batch goes back into the queue and the queue pauses with exponential backoff, so
 * a target that is down gets few requests and loses nothing. The queue is bounded: past
 * `maxTags` waiting tags it turns into one purge of everything (the `catalog` tag every catalog
 * read carries): more is refetched, nothing stays stale.
 */
export class PurgeQueue {
  /** Tag → when it was first asked for (performance.now()). Insertion order is sending order. */
  private readonly tags = new Map<string, number>();
  /** When a purge of everything was first asked for, while one waits. */
  private everythingSince: number | undefined;
  private draining: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(
    readonly target: PurgeTarget,
    private readonly options: PurgeQueueOptions,
  ) {
    this.backoffMs = options.backoffMs ?? 100;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    options.reports.depth(target.name, 0);
  }

  /** Tags waiting, a pending purge of everything counted as one. */
  get depth(): number {
    return this.tags.size + (this.everythingSince === undefined ? 0 : 1);
  }

  add(tags: readonly string[], since = performance.now()): void {
    if (this.everythingSince !== undefined) return;
    for (const tag of tags) if (!this.tags.has(tag)) this.tags.set(tag, since);
    if (this.tags.size > this.options.maxTags) this.overflowed();
    this.changed();
  }

  addEverything(since = performance.now()): void {
    let oldest = Math.min(this.everythingSince ?? since, since);
    for (const at of this.tags.values()) oldest = Math.min(oldest, at);
    this.everythingSince = oldest;
    this.tags.clear();
    this.changed();
  }

  /** Stops sending (a pause in backoff ends at once), waits for the request in flight, and says what was left unpurged. */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.draining;
    if (this.depth > 0) {
      this.options.logger.warn(
        { target: this.target.name, tags: this.tags.size, everything: this.everythingSince !== undefined },
        'purges left unsent at shutdown: the shared cache keeps those responses until their s-maxage runs out',
      );
    }
  }

  private overflowed(): void {
    this.options.reports.overflow(this.target.name);
    this.options.logger.warn(
      { target: this.target.name, maxTags: this.options.maxTags },
      'purge queue full: purging every catalog response instead of the tags waiting',
    );
    this.addEverything();
  }

  private changed(): void {
    this.options.reports.depth(this.target.name, this.depth);
    if (!this.draining && this.depth > 0 && !this.stopping.signal.aborted) {
      this.draining = this.drain().finally(() => (this.draining = undefined));
    }
  }

  private async drain(): Promise<void> {
    let pauseMs = this.backoffMs;
    let failures = 0;
    while (this.depth > 0 && !this.stopping.signal.aborted) {
      const batch = this.take();
      this.options.reports.depth(this.target.name, this.depth);
      try {
        await this.target.purge(batch.everything ? [EVERY_CATALOG_READ_TAG] : batch.tags, AbortSignal.timeout(this.options.timeoutMs));
      } catch (error) {
        failures += 1;
        this.putBack(batch);
        this.options.reports.request(this.target.name, 'failed');
        this.options.logger.warn(
          { target: this.target.name, failures, retryInMs: pauseMs, waiting: this.depth, reason: (error as Error).message },
          'purge failed; retrying with backoff',
        );
        await sleep(pauseMs, undefined, { signal: this.stopping.signal }).catch(() => {});
        pauseMs = Math.min(pauseMs * 2, this.maxBackoffMs);
        continue;
      }
      if (failures > 0) this.options.logger.info({ target: this.target.name, failures }, 'purges go through again');
      failures = 0;
      pauseMs = this.backoffMs;
      this.options.reports.request(this.target.name, 'sent');
      this.options.reports.latency(this.target.name, (performance.now() - batch.since.reduce((a, b) => Math.min(a, b))) / 1_000);
    }
  }

  /** The next request's worth: everything, when asked for, else up to the target's limit of tags, oldest first. */
  private take(): Batch {
    if (this.everythingSince !== undefined) {
      const since = this.everythingSince;
      this.everythingSince = undefined;
      return { everything: true, tags: [], since: [since] };
    }
    const tags: string[] = [];
    const since: number[] = [];
    for (const [tag, at] of this.tags) {
      if (tags.length === this.target.maxTagsPerRequest) break;
      tags.push(tag);
      since.push(at);
    }
    for (const tag of tags) this.tags.delete(tag);
    return { everything: false, tags, since };
  }

  /** A failed batch waits again, with the times it was first asked for (a newer request for a tag keeps the older time). */
  private putBack(batch: Batch): void {
    if (batch.everything) {
      this.addEverything(batch.since[0]);
      return;
    }
    if (this.everythingSince !== undefined) return;
    batch.tags.forEach((tag, index) => {
      const since = Math.min(this.tags.get(tag) ?? Infinity, batch.since[index]!);
      this.tags.set(tag, since);
    });
    if (this.tags.size > this.options.maxTags) this.overflowed();
  }
}
