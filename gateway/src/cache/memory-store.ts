import { LRUCache } from 'lru-cache';
import { TinyLfuAdmission } from './admission.js';
import type { CacheEntry, CachedRoute } from './entry.js';
import type { GrowthListener, Representations } from './representations.js';

/**
 * Expiry instants are kept as whole seconds after this process's clock origin: small integers V8
 * keeps in the entry itself, where a millisecond since 1970 needs a number object of its own.
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

  constructor(
    entry: Omit<CacheEntry, 'body'>,
    readonly representations: Representations,
  ) {
    this.route = entry.route;
    this.tagOrTags = entry.tags.length === 1 ? entry.tags[0]! : entry.tags.length === 0 ? NO_TAGS : entry.tags;
    this.expiresAtSecond = Math.floor((entry.expiresAt - CLOCK_ORIGIN_MS) / 1_000);
  }

  get tags(): readonly string[] {
    return typeof this.tagOrTags === 'string' ? [this.tagOrTags] : this.tagOrTags;
  }

  expiredAt(nowMs: number): boolean {
    return nowMs - CLOCK_ORIGIN_MS >= this.expiresAtSecond * 1_000;
  }

  /** Whether this entry was stored a fifth of a lifetime before `newer` (every entry lives as long: the TTL is one setting). */
  staleBeside(newer: MemoryEntry, nowMs: number): boolean {
    const lifetimeSeconds = newer.expiresAtSecond - (nowMs - CLOCK_ORIGIN_MS) / 1_000;
    return newer.expiresAtSecond - this.expiresAtSecond >= STALE_SHARE_OF_LIFETIME * lifetimeSeconds;
  }
}

/**
 * Per-entry cost beyond the body and the key: its ETag, tags, LRU and tag index slots and the
 * objects holding them. Measured: 393 bytes of V8 heap per entry (50,000 entries with one tag
 * each, after a full GC), rounded up.
 */
export const ENTRY_OVERHEAD_BYTES = 400;

/** A typical catalog response held: a body of about 1 KB (product 0.5, styles 2.3, related 0.03) and its overhead. */
const TYPICAL_ENTRY_BYTES = 1_024 + ENTRY_OVERHEAD_BYTES;

/** Every encoding of the body counts, and the key (V8 keeps ASCII strings at one byte a character). */
const entryBytes = (entry: MemoryEntry, key: string) => entry.representations.heldBytes + key.length + ENTRY_OVERHEAD_BYTES;

/**
 * In-process LRU of responses with a tag index, so evicting a product finds its keys directly.
 * Bounded both by entry count and by bytes, so memory stays bounded whatever the response sizes.
 * Once full, TinyLFU admission decides: a new response replaces the LRU's victim only if it was
 * asked for more often, so long-tail traffic cannot flush the frequent responses.
 */
export class MemoryStore {
  private readonly entries: LRUCache<string, MemoryEntry>;
  /** A tag's one key as is (most tags name one response), a Set from the second on. */
  private readonly keysByTag = new Map<string, string | Set<string>>();
  private readonly admission: TinyLfuAdmission;
  /** A compressed copy made later counts too: setting the entry again re-measures it (and evicts from the cold end if the budget is exceeded). */
  private readonly remeasure: GrowthListener = (key, representations) => {
    const entry = this.entries.peek(key);
    if (entry?.representations === representations) this.entries.set(key, entry);
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
      // Whenever an entry leaves (evicted, expired, replaced, deleted), unhook it from its tags.
      dispose: (entry, key) => {
        for (const tag of entry.tags) this.unindex(tag, key);
      },
    });
  }

  /** A hit counts as an access; a miss is counted when its response is stored (`set`), once. */
  get(key: string): MemoryEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiredAt(Date.now())) {
      this.entries.delete(key);
      return undefined;
    }
    this.admission.record(key);
    return entry;
  }

  set(key: string, entry: MemoryEntry): void {
    this.admission.record(key);
    if (!this.entries.has(key) && !this.admits(key, entry)) return;
    this.entries.set(key, entry);
    entry.representations.watchGrowth(key, this.remeasure);
    // An entry bigger than the whole byte budget is refused by the LRU: index nothing for it.
    if (!this.entries.has(key)) return;
    for (const tag of entry.tags) this.index(tag, key);
  }

  private index(tag: string, key: string): void {
    const keys = this.keysByTag.get(tag);
    if (keys === undefined || keys === key) this.keysByTag.set(tag, key);
    else if (typeof keys === 'string') this.keysByTag.set(tag, new Set([keys, key]));
    else keys.add(key);
  }

  private unindex(tag: string, key: string): void {
    const keys = this.keysByTag.get(tag);
    if (keys === key || (typeof keys === 'object' && keys.delete(key) && keys.size === 0)) this.keysByTag.delete(tag);
  }

  private keysOf(tag: string): string[] {
    const keys = this.keysByTag.get(tag);
    return keys === undefined ? [] : typeof keys === 'string' ? [keys] : [...keys];
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
   * The key the LRU evicts next, once expired entries have left the cold end: an expired entry is
   * worth nothing, however often it was asked for, and left there it would keep newcomers out.
   */
  private coldestLive(now: number): string | undefined {
    for (;;) {
      const coldest = this.entries.rkeys().next();
      if (coldest.done === true) return undefined;
      if (!this.entries.peek(coldest.value)!.expiredAt(now)) return coldest.value;
      this.entries.delete(coldest.value);
    }
  }

  evictTags(tags: Iterable<string>): void {
    for (const tag of tags) {
      for (const key of this.keysOf(tag)) this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
