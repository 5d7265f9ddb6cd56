import { LRUCache } from 'lru-cache';
import type { CacheEntry, CachedRoute } from './entry.js';

/**
 * A cached response whose body is encoded once, on first use, ready to be written to a socket.
 * Lazily: only hot-lane hits (REST GETs) need the bytes; GraphQL entries never do.
 */
export class MemoryEntry implements CacheEntry {
  readonly body: string;
  readonly route: CachedRoute;
  readonly tags: string[];
  readonly expiresAt: number;
  private encoded: Buffer | undefined;

  constructor(entry: CacheEntry) {
    ({ body: this.body, route: this.route, tags: this.tags, expiresAt: this.expiresAt } = entry);
  }

  get bytes(): Buffer {
    return (this.encoded ??= Buffer.from(this.body));
  }
}

/** Per-entry cost beyond the body: the key, tags, tag index slots and the objects holding them. */
const ENTRY_OVERHEAD_BYTES = 512;

/**
 * In-process LRU of responses with a tag index, so evicting a product finds its keys directly.
 * Bounded both by entry count and by bytes, so memory stays bounded whatever the response sizes.
 */
export class MemoryStore {
  private readonly entries: LRUCache<string, MemoryEntry>;
  private readonly keysByTag = new Map<string, Set<string>>();

  constructor(limits: { maxEntries: number; maxBytes: number }) {
    this.entries = new LRUCache<string, MemoryEntry>({
      max: limits.maxEntries,
      maxSize: limits.maxBytes,
      // The body may be held twice: as a string (for Fastify and Redis) and encoded (for the hot lane).
      sizeCalculation: (entry, key) => entry.body.length + Buffer.byteLength(entry.body) + key.length + ENTRY_OVERHEAD_BYTES,
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

  get(key: string): MemoryEntry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, entry: CacheEntry): void {
    this.entries.set(key, new MemoryEntry(entry));
    // An entry bigger than the whole byte budget is refused by the LRU: index nothing for it.
    if (!this.entries.has(key)) return;
    for (const tag of entry.tags) {
      let keys = this.keysByTag.get(tag);
      if (!keys) this.keysByTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
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
