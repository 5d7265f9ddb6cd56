import { randomBytes } from 'node:crypto';
import type { WriteAnnouncer } from '../coherence/write-announcer.js';
import type { CatalogEvents } from '../events/catalog-events.js';
import type { CapturedChangeSink } from './change-capture.js';

/**
 * Captured changes into the coherence protocol: a change is confirmed like a gateway write's
 * second phase (its first, the prepare, has no point once the change is committed); everything
 * is a catalog swap of an id never used before, i.e. a new epoch for every tier (rules 3, 9).
 * Called once per change for the whole fleet: where purges of a shared cache in front of the
 * gateways belong too.
 */
export function coherenceSink(writes: WriteAnnouncer, events: CatalogEvents): CapturedChangeSink {
  return {
    changed: (change, lsn) => writes.committed(change, lsn),
    everything: () => events.emit('swapped', { swapId: `capture-${randomBytes(8).toString('hex')}` }),
  };
}
