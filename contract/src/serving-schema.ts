/** The schema the gateway serves from; the loader swaps a freshly built copy into this name. */
export const SERVING_SCHEMA = 'catalog';

/**
 * Postgres NOTIFY channel on which a load announces, on commit of its swap, that a new catalog
 * is in service (payload: a unique id of the swap). Gateways listen and drop their caches.
 */
export const CATALOG_SWAPPED_CHANNEL = 'catalog_swapped';
