import pg from 'pg';
import type { Logger } from 'pino';
import { CATALOG_SWAPPED_CHANNEL } from '@catalog/contract';
import type { CatalogEvents } from '../events/catalog-events.js';

/** Reconnect delays after the listening connection is lost (the last one repeats). */
const RECONNECT_DELAYS_MS = [500, 1_000, 2_000, 5_000];

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
  let client: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const swapped = (swapId: string | undefined) => {
    logger.info({ swapId }, 'a new catalog is in service: dropping what was cached and derived from the old one');
    void events.emit('swapped', { swapId });
  };

  const scheduleReconnect = () => {
    if (closed || retry) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(failures, RECONNECT_DELAYS_MS.length - 1)]!;
    failures += 1;
    retry = setTimeout(() => {
      retry = undefined;
      void connect(true);
    }, delay);
  };

  const connect = async (reconnecting: boolean) => {
    const candidate = new pg.Client({ connectionString: url, application_name: 'catalog-gateway-listener', keepAlive: true });
    candidate.on('notification', ({ channel, payload }) => {
      if (channel === CATALOG_SWAPPED_CHANNEL) swapped(payload || undefined);
    });
    // Errors end the connection; 'end' then schedules the reconnect.
    candidate.on('error', (error) => logger.warn({ err: error }, 'catalog swap listener connection failed'));
    candidate.on('end', () => {
      if (client === candidate) client = undefined;
      scheduleReconnect();
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${CATALOG_SWAPPED_CHANNEL}`);
    } catch (error) {
      logger.warn({ err: error }, 'cannot listen for catalog swaps yet; retrying');
      await candidate.end().catch(() => {});
      scheduleReconnect();
      return;
    }
    if (closed) {
      await candidate.end();
      return;
    }
    client = candidate;
    failures = 0;
    if (reconnecting) swapped(undefined);
  };

  void connect(false);
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
