import { hash } from 'node:crypto';

/**
 * Every Redis key and channel the gateway uses. The coherence protocol's keys and channel carry its
 * version: bump it whenever a key, a script's stored format or a message changes meaning. Releases
 * of two versions side by side (a rolling update) share nothing of the protocol but the presence
 * key below, which makes both serve from the primary until one is gone (rule 12).
 */
const PROTOCOL = 'catalog:3';

/** This release's coherence protocol, as it beats in the presence key. */
export const COHERENCE_PROTOCOL = PROTOCOL;

/**
 * Which coherence protocols are live, whatever their version: a hash of protocol name to the token
 * of its latest beat (rule 12). Read and written by every version from this one on, so its name and
 * shape never change.
 */
export const REDIS_PROTOCOLS_KEY = 'catalog:protocols';

/** The coherence clock: epoch, invalidation sequence, server identity, members' leases, pending tags. */
export const REDIS_CLOCK_KEY = `${PROTOCOL}:clock`;

/**
 * Where every invalidation (prepare, confirm) and every new epoch of the clock in numbered database
 * `database` is published. Keys live in one database, but Redis delivers a message to subscribers
 * on every database: a fleet in another database of the same server must not hear this one's.
 */
export const invalidationChannel = (database: number): string => `${PROTOCOL}:invalidations:${database}`;

/** A tag's version: the `epoch:seq` of its last invalidation (or of the first store that needed one). */
export const redisTagVersionKey = (tag: string): string => `${PROTOCOL}:tag:${tag}`;

/** How many responses were stored under a tag since its last invalidation (the per-tag cap). */
export const redisTagCountKey = (tag: string): string => `${PROTOCOL}:tagcount:${tag}`;

/** A response, by its cache key: hashed so that keys of any length make bounded Redis keys. */
export const redisResponseKey = (cacheKey: string): string => `${PROTOCOL}:response:${hash('sha1', cacheKey, 'base64url')}`;

/** A persisted query's text by its SHA-256: not part of the catalog, so no epoch voids it. */
export const redisPersistedQueryKey = (sha256Hash: string): string => `catalog:apq:${sha256Hash}`;

/** A client's rate-limit counts in one window (its length in seconds, and its index in Unix time), a field per replica. */
export const redisClientUsageKey = (windowSeconds: number, window: number, clientKey: string): string =>
  `catalog:limits:${windowSeconds}:${window}:${clientKey}`;
