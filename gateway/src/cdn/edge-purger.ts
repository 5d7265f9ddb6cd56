import type { PurgeQueue } from './purge-queue.js';

/**
 * Tells the shared caches in front of the gateway (Varnish, a CDN) to let go of responses. Each
 * change is purged once for the whole fleet, by the one process that learnt of it first-hand:
 * the gateway that made a write (cdn/purge-after-writes.ts), the one whose swap started the new
 * coherence epoch (coherence/coherence.ts), whatever captures changes made outside the gateway.
 * Never blocks: purges are queued per target and sent in the background.
 */
export interface EdgePurger {
  /** Purges the responses tagged with any of `tags` (events/change-tags.ts). */
  purgeTags(tags: readonly string[]): void;
  /** Purges every catalog response (they all carry the `catalog` tag). */
  purgeAll(): void;
}

/** One queue per configured target: a target that is down delays only its own purges. */
export class QueuedEdgePurger implements EdgePurger {
  constructor(private readonly queues: readonly PurgeQueue[]) {}

  /** Whether any shared cache is purged: only then may responses tell shared caches to keep them long (`s-maxage`). */
  get purging(): boolean {
    return this.queues.length > 0;
  }

  purgeTags(tags: readonly string[]): void {
    if (tags.length === 0) return;
    for (const queue of this.queues) queue.add(tags);
  }

  purgeAll(): void {
    for (const queue of this.queues) queue.addEverything();
  }

  async close(): Promise<void> {
    await Promise.all(this.queues.map((queue) => queue.close()));
  }
}
