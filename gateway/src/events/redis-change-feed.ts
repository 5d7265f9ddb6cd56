import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CatalogEvents } from './catalog-events.js';
import { changeOfTags } from './change-tags.js';

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

export interface RedisChangeFeedOptions {
  subscriber: Redis;
  /** Redis's current invalidation generation (0 before the first invalidation). */
  readGeneration: () => Promise<number>;
  /** A Redis call that failed, by operation (subscribe, generation): counted by the caller. */
  onRedisError: (operation: string, error: unknown) => void;
  events: CatalogEvents;
  logger: Logger;
}

/**
 * Feeds the changes every replica publishes on Redis (this one's included) into the catalog
 * events, and says when some may have been missed: the subscription was lost for a while, a
 * message's generation skips one, or Redis's generation stays ahead of what was heard for a
 * whole check interval (a message lost).
 */
export class RedisChangeFeed {
  private subscriberWasDown = false;
  /** Highest invalidation generation this replica has heard of (messages, or Redis when it started). */
  private generation = 0;
  private generationSynced = false;
  /** A Redis generation seen ahead of `generation` at the last check, not heard of yet. */
  private unheardGeneration = 0;
  private readonly generationTimer: NodeJS.Timeout;

  constructor(private readonly options: RedisChangeFeedOptions) {
    const { subscriber, logger } = options;
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

  stop(): void {
    clearInterval(this.generationTimer);
  }

  /** An invalidation published by any replica (this one included). */
  private heard({ generation, tags }: InvalidationMessage): void {
    // A gap means an invalidation this replica never heard of: its tags are unknown, drop everything.
    const gap = this.generationSynced && generation > this.generation + 1;
    if (gap) {
      this.options.logger.warn({ heard: generation, expected: this.generation + 1 }, 'missed an invalidation: clearing the in-process cache');
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
