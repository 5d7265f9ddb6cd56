import { LRUCache } from 'lru-cache';
import type { CacheEntry } from './entry.js';

/** A cached response with its body already encoded, ready to be written to a socket. */
export interface MemoryEntry extends CacheEntry {
  bytes: Buffer;
}

/** In-process LRU of responses with a tag index, so evicting a product finds its keys directly. */
export class MemoryStore {
  private readonly entries: LRUCache<string, MemoryEntry>;
  private readonly keysByTag = new Map<string, Set<string>>();

  constructor(maxEntries: number) {
    this.entries = new LRUCache<string, MemoryEntry>({
      max: maxEntries,
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
    this.entries.set(key, { ...entry, bytes: Buffer.from(entry.body) });
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
