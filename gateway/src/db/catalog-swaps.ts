import type { Logger } from 'pino';
import { CATALOG_SWAPPED_CHANNEL } from '@catalog/contract';
import type { CatalogEvents } from '../events/catalog-events.js';
import { listenOn } from './listening-connection.js';

export interface CatalogSwapListener {
  close(): Promise<void>;
}

/**
 * Listens for the loader's announcement that a new catalog was swapped into service (a Postgres
 * NOTIFY sent at the swap's commit), on a connection of its own outside the pool, and emits the
 * `swapped` catalog event with the swap's id. The connection is re-made when lost; since
 * announcements sent meanwhile are lost with it, a reconnect counts as a swap of unknown id.
 */
export function listenForCatalogSwaps(url: string, events: CatalogEvents, logger: Logger): CatalogSwapListener {
  const swapped = (swapId: string | undefined) => {
    logger.info({ swapId }, 'a new catalog is in service: dropping what was cached and derived from the old one');
    void events.emit('swapped', { swapId });
  };
  return listenOn({
    url,
    channel: CATALOG_SWAPPED_CHANNEL,
    applicationName: 'catalog-gateway-listener',
    purpose: 'catalog swap listener',
    logger,
    onNotification: (payload) => swapped(payload || undefined),
    onListening: (_client, reconnected) => {
      if (reconnected) swapped(undefined);
    },
  });
}
