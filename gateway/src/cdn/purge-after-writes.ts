import type { WriteAnnouncer } from '../coherence/write-announcer.js';
import type { CatalogChange } from '../events/catalog-events.js';
import { tagsOfChange } from '../events/change-tags.js';
import type { EdgePurger } from './edge-purger.js';

/**
 * The writes' announcer, purging each change's tags from the shared caches once it is through:
 * confirmed, and every gateway's caches rid of what it replaced, so a shared cache refetching
 * after the purge gets the new data. Only the process that made the write, or captured the
 * change, gets here (the others hear it as a Redis message), so a change is purged once for the
 * fleet. A write is purged whatever its outcome: an error may come after a commit, and a
 * needless purge costs one refetch. A captured change is purged once Redis took it (a refused
 * one is tried again by its caller, and purged then).
 */
export class PurgeAfterWrites implements WriteAnnouncer {
  constructor(
    private readonly announcer: WriteAnnouncer,
    private readonly purger: EdgePurger,
  ) {}

  async around<T>(change: CatalogChange, write: () => Promise<T>): Promise<T> {
    try {
      return await this.announcer.around(change, write);
    } finally {
      this.purger.purgeTags(tagsOfChange(change));
    }
  }

  async committed(change: CatalogChange, lsn: bigint): Promise<void> {
    await this.announcer.committed(change, lsn);
    this.purger.purgeTags(tagsOfChange(change));
  }
}
