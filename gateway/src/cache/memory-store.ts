import { LRUCache } from 'lru-cache';
import { TinyLfuAdmission } from './admission.js';
import type { CacheEntry, CachedRoute } from './entry.js';
import type { Representations } from './representations.js';

/**
 * A cached response as the in-process cache holds it: its body in every encoding it is sent in,
 * with their ETags and headers (each made once: as is when it entered memory, compressed copies
 * when first asked for), the route it answers, what
 * it was built from, and when it stops being valid.
 */
export class MemoryEntry {
  readonly route: CachedRoute;
  readonly tags: string[];
  readonly expiresAt: number;

  constructor(
    entry: Omit<CacheEntry, 'body'>,
    readonly representations: Representations,
  ) {
    ({ route: this.route, tags: this.tags, expiresAt: this.expiresAt } = entry);
  }
}

/** Per-entry cost beyond the body: the key, tags, tag index slots and the objects holding them. */
const ENTRY_OVERHEAD_BYTES = 512;

/** Every encoding of the body counts, and the key (V8 keeps ASCII strings at one byte a character). */
const entryBytes = (entry: MemoryEntry, key: string) => entry.representations.byteLength + key.length + ENTRY_OVERHEAD_BYTES;

/**
 * In-process LRU of responses with a tag index, so evicting a product finds its keys directly.
 * Bounded both by entry count and by bytes, so memory stays bounded whatever the response sizes.
 * Once full, TinyLFU admission decides: a new response replaces the LRU's victim only if it was
 * asked for more often, so long-tail traffic cannot flush the frequent responses.
 */
export class MemoryStore {
  private readonly entries: LRUCache<string, MemoryEntry>;
  private readonly keysByTag = new Map<string, Set<string>>();
  private readonly admission: TinyLfuAdmission;

  constructor(limits: { maxEntries: number; maxBytes: number }) {
    // Sized for the most entries the limits allow (the byte budget of the smallest entries).
    this.admission = new TinyLfuAdmission(Math.min(limits.maxEntries, Math.ceil(limits.maxBytes / ENTRY_OVERHEAD_BYTES)));
    this.entries = new LRUCache<string, MemoryEntry>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      sizeCalculation: (entry, key) => entryBytes(entry, key),
      // Whenever an entry leaves (evicted, expired, replaced, deleted), unhook it from its tags.
      dispose: (entry, key) => {
        for (const tag of entry.tags) {
          const keys = this.keysByTag.get(tag);
          keys?.delete(key);
          if (keys?.size === 0) this.keysByTag.delete(tag);
        }
      },
    });
  }

  /** A hit counts as an access; a miss is counted when its response is stored (`set`), once. */
  get(key: string): MemoryEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
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
    // A compressed copy made later counts too: setting the entry again re-measures it (and
    // evicts from the cold end if the budget is exceeded).
    entry.representations.onGrow = () => {
      if (this.entries.peek(key) === entry) this.entries.set(key, entry);
    };
    // An entry bigger than the whole byte budget is refused by the LRU: index nothing for it.
    if (!this.entries.has(key)) return;
    for (const tag of entry.tags) {
      let keys = this.keysByTag.get(tag);
      if (!keys) this.keysByTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Room to spare, or asked for more often than the entry it would push out. */
  private admits(key: string, entry: MemoryEntry): boolean {
    const full = this.entries.size >= this.entries.max || this.entries.calculatedSize + entryBytes(entry, key) > this.entries.maxSize;
    if (!full) return true;
    const victim = this.entries.rkeys().next();
    return victim.done === true || this.admission.admit(key, victim.value);
  }

  evictTags(tags: Iterable<string>): void {
    for (const tag of tags) {
      for (const key of [...(this.keysByTag.get(tag) ?? [])]) this.entries.delete(key);
    }
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
