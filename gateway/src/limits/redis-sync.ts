import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { SharedRedis } from '../redis/shared-redis.js';
import { isCircuitOpen } from '../redis/breaker.js';
import { redisClientUsageKey } from '../redis/keys.js';
import type { LimitsReport } from './limits-report.js';
import type { ClientUsage, TouchedUsages, WindowCounters } from './window-counters.js';

/** Clients per script call: one call runs atomically in Redis, so a long list is split. */
const CLIENTS_PER_CALL = 500;

/**
 * Every `intervalMs`, records in Redis this replica's counts of the clients it counted since the
 * last time and takes back the other replicas' counts, so each replica's view includes the
 * others' within about one interval. Requests never wait for it: admission only reads the
 * counters. At most one sync runs at a time, each call through the cache's circuit breaker and
 * bounded by the connection's command timeout; the clients of a failed sync go with the next
 * one. While Redis is sick each replica thus counts alone (its own requests against the whole
 * limit), and while the circuit is open no call reaches Redis at all.
 */
export class RedisCounterSync {
  /** Names this process's counts in Redis: a restarted replica starts its own, and its earlier ones still count. */
  private readonly replicaId = randomBytes(6).toString('base64url');
  private readonly timer: NodeJS.Timeout;
  private running = false;
  private failing = false;

  constructor(
    private readonly redis: SharedRedis,
    private readonly counters: WindowCounters,
    intervalMs: number,
    private readonly report: LimitsReport,
    private readonly logger: Logger,
  ) {
    this.timer = setInterval(() => void this.sync(), intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sync of the clients counted since the last; resolves when it is done or failed (never rejects). */
  async sync(): Promise<void> {
    if (this.running) return;
    const touched = this.counters.takeTouched();
    if (touched.usages.length === 0) return;
    this.running = true;
    try {
      const calls: Promise<void>[] = [];
      for (let start = 0; start < touched.usages.length; start += CLIENTS_PER_CALL) {
        calls.push(this.record({ window: touched.window, usages: touched.usages.slice(start, start + CLIENTS_PER_CALL) }));
      }
      await Promise.all(calls);
    } finally {
      this.running = false;
    }
  }

  private async record(batch: TouchedUsages): Promise<void> {
    const { window, usages } = batch;
    const keys = usages.map((usage) => redisClientUsageKey(this.counters.windowMs / 1_000, window, usage.client.key));
    const counts = usages.flatMap((usage) => [usage.ownRequests, usage.ownCost]);
    try {
      const others = await this.redis.breaker.run(() =>
        this.redis.client.recordClientUsage(keys.length, ...keys, 2 * this.counters.windowMs, this.replicaId, ...counts),
      );
      usages.forEach((usage: ClientUsage, index) =>
        this.counters.applyOthers(window, usage, { requests: others[2 * index]!, cost: others[2 * index + 1]! }),
      );
      this.report.synced('ok');
      if (this.failing) this.logger.info('rate limits: Redis answers again; counting across replicas');
      this.failing = false;
    } catch (error) {
      this.counters.retouch(batch);
      const skipped = isCircuitOpen(error);
      this.report.synced(skipped ? 'skipped' : 'failed');
      if (!this.failing)
        this.logger.warn({ err: error }, 'rate limits: Redis unavailable; each replica counts its own requests until it is back');
      this.failing = true;
    }
  }
}
