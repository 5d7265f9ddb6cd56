import { LRUCache } from 'lru-cache';
import { TinyLfuAdmission } from './admission.js';
import type { CachedRoute } from './cached-routes.js';
import type { CacheEntry } from './entry.js';
import type { GrowthListener, Representations } from './representations.js';

/**
 * Expiry instants are kept as whole seconds after this process's clock origin: small integers V8
 * keeps in the entry itself, where a millisecond since 1970 needs a number object of its own.
 * The wall clock, on purpose: an entry's expiry and an invalidation's end are compared only with
 * each other, on this one clock, so a step moves both together (it shortens or stretches a TTL,
 * never lets an entry outlive the invalidation that voids it); and expiries travel through Redis.
 */
const CLOCK_ORIGIN_MS = Date.now();
const NO_TAGS: readonly string[] = [];
/**
 * An entry that has sat in the cache for this share of its lifetime without being asked for more
 * often than a newcomer is stale: the newcomer gets the place (a scan's one-hit wonders would
 * otherwise keep every newcomer out until counts fade).
 */
const STALE_SHARE_OF_LIFETIME = 1 / 5;

/**
 * A cached response as the in-process cache holds it: its body in every encoding it is sent in,
 * with their ETags (each made once: as is when it entered memory, compressed copies when first
 * asked for), the route it answers, what it was built from, and when it stops being valid.
 */
export class MemoryEntry {
  readonly route: CachedRoute;
  /** A single tag as is (most responses name one product), several as a list: a list per entry is two objects more. */
  private readonly tagOrTags: string | readonly string[];
  /** Rounded down: an entry expires up to a second early, never late. */
  private readonly expiresAtSecond: number;
  /** The store's invalidation epoch at which this entry was last known valid (set by the store). */
  validAtEpoch = 0;

  constructor(
    entry: Omit<CacheEntry, 'body' | 'etag'>,
    readonly representations: Representations,
  ) {
    this.route = entry.route;
    this.tagOrTags = entry.tags.length === 1 ? entry.tags[0]! : entry.tags.length === 0 ? NO_TAGS : entry.tags;
    this.expiresAtSecond = Math.floor((entry.expiresAt - CLOCK_ORIGIN_MS) / 1_000);
  }

  get tags(): readonly string[] {
    return typeof this.tagOrTags === 'string' ? [this.tagOrTags] : this.tagOrTags;
  }

  /** When it stops being valid, as the store counts it (rounded down to the second). */
  get expiresAtMs(): number {
    return CLOCK_ORIGIN_MS + this.expiresAtSecond * 1_000;
  }

  expiredAt(nowMs: number): boolean {
    return nowMs - CLOCK_ORIGIN_MS >= this.expiresAtSecond * 1_000;
  }

  /** Whether one of this entry's tags was invalidated after `validAtEpoch` (`invalidatedAt`: each tag's latest invalidation). */
  invalidatedSinceValid(invalidatedAt: ReadonlyMap<string, TagInvalidation>): boolean {
    return this.tags.some((tag) => (invalidatedAt.get(tag)?.epoch ?? 0) > this.validAtEpoch);
  }

  /** Whether this entry was stored a fifth of a lifetime before `newer` (every entry lives as long: the TTL is one setting). */
  staleBeside(newer: MemoryEntry, nowMs: number): boolean {
    const lifetimeSeconds = newer.expiresAtSecond - (nowMs - CLOCK_ORIGIN_MS) / 1_000;
    return newer.expiresAtSecond - this.expiresAtSecond >= STALE_SHARE_OF_LIFETIME * lifetimeSeconds;
  }
}

/**
 * Per-entry cost beyond the body and the key: its ETag, tags, LRU slots and the objects holding
 * them. Measured: about 365 bytes of V8 heap per entry (50,000 entries with one tag each, after a
 * full GC); rounded up for entries with several tags.
 */
export const ENTRY_OVERHEAD_BYTES = 400;

/** A typical catalog response held: a body of about 1 KB (product 0.5, styles 2.3, related 0.03) and its overhead. */
const TYPICAL_ENTRY_BYTES = 1_024 + ENTRY_OVERHEAD_BYTES;

/** Every encoding of the body counts, and the key (V8 keeps ASCII strings at one byte a character). */
const entryBytes = (entry: MemoryEntry, key: string) => entry.representations.heldBytes + key.length + ENTRY_OVERHEAD_BYTES;

/** A tag's latest invalidation: its epoch, and when no entry stored before it can be alive any more. */
export interface TagInvalidation {
  epoch: number;
  forgettableAtMs: number;
}

/**
 * In-process LRU of responses, bounded both by entry count and by bytes, so memory stays bounded
 * whatever the response sizes. Once full, TinyLFU admission decides: a new response replaces the
 * LRU's victim only if it was asked for more often, so long-tail traffic cannot flush the
 * frequent responses.
 *
 * Evicting by tag is lazy: it records the tags' invalidation, and an entry stored before it is
 * dropped when next asked for (or when it reaches the LRU's cold end). A tag index found the keys
 * at once, but kept a map slot (and, for a tag several responses share, a Set) per entry up to
 * date on every insert and eviction: 4 % of the long tail's CPU, and the GC's work besides.
 */
export class MemoryStore {
  private readonly entries: LRUCache<string, MemoryEntry>;
  /** Bumped by every eviction by tag and every clear: an entry valid at the current count needs no tag looked up. */
  private evictions = 0;
  /**
   * Reads stamped before this count cannot be checked any more (the store was cleared, or the
   * invalidations since were forgotten): their responses are not kept.
   */
  private trustedSinceEpoch = 0;
  /** Each invalidated tag's latest invalidation, oldest first (a tag invalidated again moves to the end). */
  private readonly invalidations = new Map<string, TagInvalidation>();
  /** The latest expiry of any entry stored so far: an invalidation is forgotten once it has passed. */
  private latestExpiryMs = 0;
  private readonly admission: TinyLfuAdmission;
  /**
   * A compressed copy made later counts too: the entry is put again, so that it is measured again
   * (and entries leave the cold end while the budget is exceeded). Deleted first: the LRU measures
   * only a value it does not hold already, and setting the same one again would keep its old size.
   */
  private readonly remeasure: GrowthListener = (key, representations) => {
    const entry = this.entries.peek(key);
    if (entry?.representations !== representations) return;
    this.entries.delete(key);
    this.entries.set(key, entry);
  };

  constructor(limits: { maxEntries: number; maxBytes: number }) {
    // Sized for the entries the cache holds of typical responses, not the most the limits allow:
    // counts fade every 20 × that many accesses, and sized for the smallest entries they would
    // fade so rarely that keys popular an hour ago keep out what is popular now.
    this.admission = new TinyLfuAdmission(Math.min(limits.maxEntries, Math.ceil(limits.maxBytes / TYPICAL_ENTRY_BYTES)));
    this.entries = new LRUCache<string, MemoryEntry>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (entry, key) => entryBytes(entry, key),
    });
  }

  /** A hit counts as an access; a miss is counted when its response is stored (`set`), once. */
  get(key: string): MemoryEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (!this.live(entry, Date.now())) {
      this.entries.delete(key);
      return undefined;
    }
    this.admission.record(key);
    return entry;
  }

  /**
   * Where the eviction history is now: a response whose data is read from now on is stamped with
   * it, so that `set` can tell whether something it was built from was evicted meanwhile.
   */
  get epoch(): number {
    return this.evictions;
  }

  /**
   * Keeps a response whose data was read at `readAtEpoch` (this store's `epoch` then; now by
   * default), unless one of its tags was evicted since, or the store was cleared since: then it
   * may predate a write.
   */
  set(key: string, entry: MemoryEntry, readAtEpoch = this.evictions): void {
    this.admission.record(key);
    if (this.invalidatedSince(entry.tags, readAtEpoch)) return;
    if (!this.entries.has(key) && !this.admits(key, entry)) return;
    entry.validAtEpoch = this.evictions;
    this.latestExpiryMs = Math.max(this.latestExpiryMs, entry.expiresAtMs);
    this.entries.set(key, entry);
    entry.representations.watchGrowth(key, this.remeasure);
  }

  /**
   * Whether something with `tags` read at `readAtEpoch` (this store's `epoch` then) may predate an
   * invalidation heard since: one of its tags was evicted after it, or the store was cleared (or
   * forgot the invalidations) since.
   */
  invalidatedSince(tags: readonly string[], readAtEpoch: number): boolean {
    if (readAtEpoch < this.trustedSinceEpoch) return true;
    if (readAtEpoch === this.evictions) return false;
    return tags.some((tag) => (this.invalidations.get(tag)?.epoch ?? 0) > readAtEpoch);
  }

  /** Neither expired nor built from something evicted by tag since it was stored (or last found valid). */
  private live(entry: MemoryEntry, now: number): boolean {
    if (entry.expiredAt(now)) return false;
    if (entry.validAtEpoch === this.evictions) return true;
    if (entry.invalidatedSinceValid(this.invalidations)) return false;
    entry.validAtEpoch = this.evictions;
    return true;
  }

  /** Room to spare, or asked for more often than the live entry it would push out (or as often, when that one is stale). */
  private admits(key: string, entry: MemoryEntry): boolean {
    if (!this.isFullFor(key, entry)) return true;
    const now = Date.now();
    const victim = this.coldestLive(now);
    if (victim === undefined || !this.isFullFor(key, entry)) return true;
    return this.admission.admit(key, victim, this.entries.peek(victim)!.staleBeside(entry, now));
  }

  private isFullFor(key: string, entry: MemoryEntry): boolean {
    return this.entries.size >= this.entries.max || this.entries.calculatedSize + entryBytes(entry, key) > this.entries.maxSize;
  }

  /**
   * The key the LRU evicts next, once expired and invalidated entries have left the cold end: such
   * an entry is worth nothing, however often it was asked for, and left there it would keep
   * newcomers out.
   */
  private coldestLive(now: number): string | undefined {
    for (;;) {
      const coldest = this.entries.rkeys().next();
      if (coldest.done === true) return undefined;
      if (this.live(this.entries.peek(coldest.value)!, now)) return coldest.value;
      this.entries.delete(coldest.value);
    }
  }

  /** Makes every entry built from one of `tags` unreachable (dropped when next met). */
  evictTags(tags: Iterable<string>): void {
    this.evictions += 1;
    const invalidation = { epoch: this.evictions, forgettableAtMs: this.latestExpiryMs };
    for (const tag of tags) {
      this.invalidations.delete(tag);
      this.invalidations.set(tag, invalidation);
    }
    this.forgetPastInvalidations(Date.now());
  }

  /** Invalidations every entry stored before has outlived: oldest first, so the first one still needed ends the sweep. */
  private forgetPastInvalidations(now: number): void {
    for (const [tag, { epoch, forgettableAtMs }] of this.invalidations) {
      if (forgettableAtMs > now) return;
      this.invalidations.delete(tag);
      this.trustedSinceEpoch = Math.max(this.trustedSinceEpoch, epoch);
    }
  }

  /** Invalidations remembered (each for as long as an entry stored before it may live). */
  get rememberedInvalidations(): number {
    return this.invalidations.size;
  }

  /** Forgets every entry; responses read before this are not kept either. */
  clear(): void {
    this.evictions += 1;
    this.trustedSinceEpoch = this.evictions;
    this.entries.clear();
    this.invalidations.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
