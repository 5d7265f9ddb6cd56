import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { ENTRY_OVERHEAD_BYTES, MemoryEntry, MemoryStore } from '../src/cache/memory-store.js';
import { COMPRESSION_MIN_BYTES, RepresentationEncoder } from '../src/cache/representations.js';

const encoder = new RepresentationEncoder({ maxAgeSeconds: 60, staleWhileRevalidateSeconds: 300 });
const entry = (body: string, tags: string[] = []) =>
  new MemoryEntry({ route: '/products/:product_id', tags, expiresAt: Date.now() + 60_000 }, encoder.encode(body));
const bigBody = JSON.stringify({
  name: 'Café Crème',
  slogan: '“quoted” ✓',
  features: Array(60).fill({ feature: 'Fabric', value: 'Canvas' }),
});

describe('in-process store', () => {
  it('never serves an entry past its expiry (kept to the second, it may expire up to a second early)', () => {
    const expiresAt = Date.now() + 5_000;
    const expiring = new MemoryEntry({ route: '/products/:product_id', tags: ['product:1'], expiresAt }, encoder.encode('{"id":1}'));
    assert.equal(expiring.expiredAt(expiresAt), true);
    assert.equal(expiring.expiredAt(expiresAt + 60_000), true);
    assert.equal(expiring.expiredAt(expiresAt - 1_001), false);
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    store.set('past', new MemoryEntry({ route: '/products/:product_id', tags: [], expiresAt: Date.now() - 1 }, encoder.encode('{"id":2}')));
    assert.equal(store.get('past'), undefined);
  });

  it('keeps the tags an entry was stored with, one or many', () => {
    for (const tags of [[], ['product:1'], ['products', 'product:1', 'product:2']]) {
      assert.deepEqual(entry('{}', tags).tags, tags);
    }
  });

  it('holds a body in every encoding it is sent in, each decoding to the same text', () => {
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    store.set('k', entry(bigBody));
    const { identity, gzip, br } = store.get('k')!.representations;
    assert.equal(identity.body, bigBody);
    assert.equal(identity.byteLength, Buffer.byteLength(bigBody));
    const [gzipBytes, brBytes] = [gzip!.body, br!.body] as Buffer[];
    assert.equal(gunzipSync(gzipBytes!).toString(), bigBody);
    assert.equal(brotliDecompressSync(brBytes!).toString(), bigBody);
    // Each compressed copy holds its own bytes only (zlib's output is a slice of a 16 KiB chunk).
    assert.equal(gzipBytes!.buffer.byteLength, gzip!.byteLength);
    assert.equal(brBytes!.buffer.byteLength, br!.byteLength);
  });

  it('counts a body as is at what its text takes: a byte a character when ASCII, else two', () => {
    for (const [body, held] of [
      ['{"id":1}', 8],
      ['x'.repeat(COMPRESSION_MIN_BYTES * 3), COMPRESSION_MIN_BYTES * 3],
      ['é'.repeat(300), 600],
      ['“quoted” ✓', 20],
    ] as const) {
      const representations = entry(body).representations;
      assert.equal(representations.identity.body, body);
      assert.equal(representations.identity.byteLength, Buffer.byteLength(body), 'Content-Length is in UTF-8 bytes');
      assert.equal(representations.heldBytes, held);
    }
  });

  it('counts the body once when it is too small to compress', () => {
    const body = 'x'.repeat(COMPRESSION_MIN_BYTES - 24);
    // Room for ten entries of this size counted once (body + key + overhead), not for ten counted twice.
    const store = new MemoryStore({ maxEntries: 1_000, maxBytes: 10 * (body.length + 'key-0'.length + ENTRY_OVERHEAD_BYTES) });
    for (let index = 0; index < 10; index += 1) store.set(`key-${index}`, entry(body));
    assert.equal(store.size, 10);
  });

  it('compresses a body only when a client first asks for that encoding, and counts the copy against its byte budget', () => {
    const bodyOnly = 2 * bigBody.length + 'k'.length + ENTRY_OVERHEAD_BYTES;
    const store = new MemoryStore({ maxEntries: 10, maxBytes: bodyOnly + 10 });
    store.set('k', entry(bigBody));
    const held = store.get('k')!.representations;
    assert.equal(held.heldBytes, 2 * bigBody.length, 'no compressed copy before a client asks');
    assert.equal(held.negotiate('gzip, deflate, br'), held.negotiate('br'), 'one brotli copy, made once');
    assert.equal(store.size, 0, 'its brotli copy does not fit the budget: the entry leaves');

    const roomy = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    roomy.set('k', entry(bigBody));
    roomy.get('k')!.representations.negotiate('br');
    assert.equal(roomy.size, 1);
  });

  it('counts a compressed copy made after an entry was stored against the whole budget: the coldest entry leaves for it', () => {
    const identityOnly = 2 * bigBody.length + 'a'.length + ENTRY_OVERHEAD_BYTES;
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 2 * identityOnly });
    store.set('a', entry(bigBody));
    store.set('b', entry(bigBody));
    assert.equal(store.size, 2, 'both fit as they are');
    const grown = store.get('b')!.representations;
    grown.negotiate('gzip');
    assert.ok(grown.heldBytes > 2 * bigBody.length, 'b holds a gzip copy now');
    assert.ok(store.get('a') === undefined, 'a, the least recently used, left to make room for the copy');
    assert.equal(store.get('b')?.representations, grown);
    assert.equal(store.size, 1);
  });

  it('evicts by tag what it admitted', () => {
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    store.set('a', entry('{"id":1}', ['product:1']));
    store.set('b', entry('{"id":2}', ['product:2']));
    store.evictTags(['product:1']);
    assert.equal(store.get('a'), undefined);
    assert.equal(store.get('b')!.representations.identity.body, '{"id":2}');
  });

  it('keeps a response read before an eviction only if none of its tags was evicted, and none read before a clear', () => {
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    // An entry that lives on keeps the store's evictions remembered (an empty store forgets them at once).
    store.set('zero', entry('{"id":0}', ['product:0']));
    const readAt = store.epoch;
    store.evictTags(['product:1']); // a write to product 1 lands while both responses are computed
    store.set('one', entry('{"id":1}', ['product:1']), readAt);
    store.set('two', entry('{"id":2}', ['product:2']), readAt);
    assert.equal(store.get('one'), undefined, 'built from product 1 before its write: may be stale');
    assert.equal(store.get('two')!.representations.identity.body, '{"id":2}');
    const beforeClear = store.epoch;
    store.clear();
    store.set('three', entry('{"id":3}', ['product:3']), beforeClear);
    assert.equal(store.get('three'), undefined, 'read before the store forgot everything');
    store.set('four', entry('{"id":4}', ['product:4']));
    assert.ok(store.get('four'), 'read after it is kept');
  });

  it('evicts every key of a tag many responses share, and only those, whether it left on its own or not', () => {
    const store = new MemoryStore({ maxEntries: 3, maxBytes: 1024 ** 2 });
    store.set('product', entry('{"id":1}', ['product:1']));
    store.set('styles', entry('{"styles":[]}', ['product:1']));
    store.set('related', entry('[2]', ['product:1', 'product:2']));
    store.set('related', entry('[2]', ['product:1', 'product:2'])); // replaced
    // A fourth entry, asked for more often, takes the least recently used one's place.
    for (let count = 0; count < 3; count += 1) store.set('other', entry('{"id":3}', ['product:3']));
    assert.equal(store.get('product'), undefined, 'evicted by the LRU');
    store.evictTags(['product:1']);
    assert.equal(store.get('styles'), undefined);
    assert.equal(store.get('related'), undefined);
    assert.equal(store.get('other')!.representations.identity.body, '{"id":3}');
    store.set('product', entry('{"id":1}', ['product:1']));
    store.evictTags(['product:2']);
    assert.equal(
      store.get('product')!.representations.identity.body,
      '{"id":1}',
      'stored after product:1 was evicted, and not of product:2',
    );
    store.evictTags(['product:3']);
    assert.equal(store.get('other'), undefined);
    assert.equal(store.get('product')!.representations.identity.body, '{"id":1}');
    store.evictTags(['product:1']);
    assert.equal(store.get('product'), undefined, 'a tag evicted again evicts what was stored since');
  });

  it('lets an evicted entry make room for newcomers, as an expired one does', () => {
    const store = new MemoryStore({ maxEntries: 2, maxBytes: 1024 ** 2 });
    for (let count = 0; count < 5; count += 1) {
      store.set('a', entry('{"id":1}', ['product:1']));
      store.set('b', entry('{"id":2}', ['product:2']));
    }
    store.evictTags(['product:1', 'product:2']);
    // Asked for once, the newcomers would lose to entries asked for five times: evicted, those count for nothing.
    store.set('c', entry('{"id":3}', ['product:3']));
    store.set('d', entry('{"id":4}', ['product:4']));
    assert.equal(store.get('c')!.representations.identity.body, '{"id":3}');
    assert.equal(store.get('d')!.representations.identity.body, '{"id":4}');
    assert.equal(store.size, 2);
  });

  it('remembers an eviction by tag only as long as an entry stored before it may live', (context) => {
    context.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    store.set('a', entry('{"id":1}', ['product:1'])); // lives until 60 s
    store.evictTags(['product:1', 'product:2']);
    assert.equal(store.rememberedInvalidations, 2);
    context.mock.timers.tick(30_000);
    store.set('b', entry('{"id":3}', ['product:3'])); // lives until 90 s
    store.evictTags(['product:3']);
    assert.equal(store.rememberedInvalidations, 3, 'every entry stored before may still be alive');
    context.mock.timers.tick(30_000);
    store.evictTags(['product:4']);
    assert.equal(store.rememberedInvalidations, 2, 'those of before 30 s are gone: no entry stored before them is alive');
    assert.equal(store.get('b'), undefined, 'what they evicted stays evicted');
    context.mock.timers.tick(30_000);
    store.evictTags(['product:5']);
    assert.equal(store.rememberedInvalidations, 0, 'nothing stored so far is alive');
    store.set('c', entry('{"id":5}', ['product:5']));
    store.evictTags(['product:5']);
    assert.equal(store.rememberedInvalidations, 1);
    store.clear();
    assert.equal(store.rememberedInvalidations, 0);
  });
});
