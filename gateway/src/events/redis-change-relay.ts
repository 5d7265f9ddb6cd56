import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CatalogChange, CatalogEvents } from './catalog-events.js';
import { changeOfTags, tagsOfChange } from './change-tags.js';

/** Pub/sub channel on which every replica hears which tags a write invalidated. */
export const INVALIDATION_CHANNEL = 'catalog:invalidations';

/** Counts every invalidation ever made through Redis; replicas compare it with what they heard. */
export const REDIS_GENERATION_KEY = 'catalog:generation';

/** An invalidation as published: its generation and the tags it evicted. */
export interface InvalidationMessage {
  generation: number;
  tags: string[];
}

/** How often a replica compares Redis's invalidation generation with the ones it heard. */
const GENERATION_CHECK_MS = 1_000;
/** First and longest wait before retrying an invalidation Redis did not take. */
const RETRY_FIRST_MS = 100;
const RETRY_LONGEST_MS = 2_000;

export interface RedisChangeRelayOptions {
  subscriber: Redis;
  /**
   * Delivers a change made here: in one step, evicts the tagged responses from Redis, bumps the
   * invalidation generation and publishes `{generation, tags}` on INVALIDATION_CHANNEL.
   */
  announce: (tags: string[]) => Promise<unknown>;
  /** Redis's current invalidation generation (0 before the first invalidation). */
  readGeneration: () => Promise<number>;
  /** A Redis call that failed, by operation (invalidate, subscribe, generation): counted by the caller. */
  onRedisError: (operation: string, error: unknown) => void;
  events: CatalogEvents;
  logger: Logger;
}

/**
 * Carries catalog changes between replicas through Redis. Changes made here are announced (a
 * write answers once Redis took it; what Redis does not take is retried until it does). Changes
 * every replica announces (this one's included) are fed into the catalog events, and so is the
 * news that some may have been missed: the subscription was lost for a while, a message's
 * generation skips one, or Redis's generation stays ahead of what was heard for a whole check
 * interval (a message lost).
 */
export class RedisChangeRelay {
  private subscriberWasDown = false;
  /** Highest invalidation generation this replica has heard of (messages, or Redis when it started). */
  private generation = 0;
  private generationSynced = false;
  /** A Redis generation seen ahead of `generation` at the last check, not heard of yet. */
  private unheardGeneration = 0;
  private readonly generationTimer: NodeJS.Timeout;
  /** Tags whose invalidation Redis has not taken yet, and the retry waiting to deliver them. */
  private readonly undelivered = new Set<string>();
  private retryTimer?: NodeJS.Timeout;
  private retryDelayMs = RETRY_FIRST_MS;

  constructor(private readonly options: RedisChangeRelayOptions) {
    const { subscriber, logger, events } = options;
    events.on('changed', (change) => this.announce(change));
    subscriber.on('ready', () => {
      subscriber.subscribe(INVALIDATION_CHANNEL).catch((error) => options.onRedisError('subscribe', error));
      // Invalidations published while we were cut off are lost: start over.
      if (this.subscriberWasDown) this.missed();
      this.subscriberWasDown = false;
    });
    subscriber.on('close', () => {
      this.subscriberWasDown = true;
    });
    subscriber.on('message', (_channel, message) => {
      try {
        this.heard(JSON.parse(message) as InvalidationMessage);
      } catch (error) {
        logger.warn({ err: error, message }, 'ignoring malformed invalidation message');
      }
    });
    void this.checkGeneration();
    this.generationTimer = setInterval(() => void this.checkGeneration(), GENERATION_CHECK_MS);
    this.generationTimer.unref();
  }

  /** The newest invalidation generation heard: a response read now predates none after it. */
  get heardGeneration(): number {
    return this.generation;
  }

  /** Stops the background checks and retries (on shutdown); says what could not be delivered. */
  stop(): void {
    clearInterval(this.generationTimer);
    clearTimeout(this.retryTimer);
    if (this.undelivered.size > 0) {
      this.options.logger.error(
        { tags: [...this.undelivered] },
        'shutting down with invalidations Redis never took: other replicas keep these until their TTL',
      );
    }
  }

  private async announce(change: CatalogChange): Promise<void> {
    if (!change.remote) await this.deliver(tagsOfChange(change));
  }

  private async deliver(tags: string[]): Promise<void> {
    try {
      await this.options.announce(tags);
    } catch (error) {
      this.options.onRedisError('invalidate', error);
      for (const tag of tags) this.undelivered.add(tag);
      this.scheduleRetry();
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      const tags = [...this.undelivered];
      this.undelivered.clear();
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, RETRY_LONGEST_MS);
      void this.deliver(tags).then(() => {
        if (this.undelivered.size === 0) {
          this.retryDelayMs = RETRY_FIRST_MS;
          this.options.logger.info({ tags: tags.length }, 'delivered invalidations Redis had not taken');
        }
      });
    }, this.retryDelayMs);
  }

  /** An invalidation published by any replica (this one included). */
  private heard({ generation, tags }: InvalidationMessage): void {
    // A gap means an invalidation this replica never heard of: its tags are unknown, drop everything.
    const gap = this.generationSynced && generation > this.generation + 1;
    if (gap) {
      this.options.logger.warn(
        { heard: generation, expected: this.generation + 1 },
        'missed an invalidation: clearing the in-process cache',
      );
      this.missed();
    } else {
      void this.options.events.emit('changed', { ...changeOfTags(tags), remote: true });
    }
    this.generation = Math.max(this.generation, generation);
  }

  /**
   * Compares Redis's generation with the ones heard. Ahead for one check is normal (a message on
   * its way); still ahead at the next check, the message was lost: drop everything.
   */
  private async checkGeneration(): Promise<void> {
    let current: number;
    try {
      current = await this.options.readGeneration();
    } catch (error) {
      this.options.onRedisError('generation', error);
      return;
    }
    if (!this.generationSynced) {
      // Nothing cached yet predates what Redis knows.
      this.generation = Math.max(this.generation, current);
      this.generationSynced = true;
      return;
    }
    if (this.unheardGeneration > this.generation) {
      this.options.logger.warn({ heard: this.generation, redis: current }, 'invalidations were not heard: clearing the in-process cache');
      this.missed();
      this.generation = Math.max(this.generation, this.unheardGeneration);
    }
    this.unheardGeneration = current > this.generation ? current : 0;
  }

  private missed(): void {
    void this.options.events.emit('missed', {});
  }
}
