import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { MemoryEntry, MemoryStore } from '../src/cache/memory-store.js';
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
  it('holds a body in every encoding it is sent in, each decoding to the same text', () => {
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    store.set('k', entry(bigBody));
    const { identity, gzip, br } = store.get('k')!.representations;
    assert.equal(identity.body, bigBody);
    assert.equal(gunzipSync(gzip!.body).toString(), bigBody);
    assert.equal(brotliDecompressSync(br!.body).toString(), bigBody);
    // Each compressed copy holds its own bytes only (zlib's output is a slice of a 16 KiB chunk).
    for (const copy of [gzip!.body, br!.body]) assert.ok(Buffer.isBuffer(copy) && copy.buffer.byteLength === copy.length);
  });

  it('holds the JSON as text, counted at one byte a character when ASCII and two otherwise', () => {
    // Buffers freed in LRU order fragment the C heap (and Buffer.from's pool slices keep whole
    // 8 KiB pools alive); the V8 heap compacts.
    const ascii = '{"id":1}';
    const accented = JSON.stringify({ name: 'Café' });
    assert.equal(entry(ascii).representations.identity.body, ascii);
    assert.equal(entry(ascii).representations.byteLength, ascii.length);
    assert.equal(entry(accented).representations.byteLength, 2 * accented.length);
  });

  it('counts the body once when it is too small to compress', () => {
    const body = 'x'.repeat(COMPRESSION_MIN_BYTES - 24);
    // Room for ten entries of this size counted once (body + key + 512 bytes overhead), not for ten counted twice.
    const store = new MemoryStore({ maxEntries: 1_000, maxBytes: 10 * (body.length + 'key-0'.length + 512) });
    for (let index = 0; index < 10; index += 1) store.set(`key-${index}`, entry(body));
    assert.equal(store.size, 10);
  });

  it('compresses a body only when a client first asks for that encoding, and counts the copy against its byte budget', () => {
    // bigBody is not all ASCII: its text counts two bytes a character.
    const bodyOnly = 2 * bigBody.length + 'k'.length + 512;
    const store = new MemoryStore({ maxEntries: 10, maxBytes: bodyOnly + 10 });
    store.set('k', entry(bigBody));
    const held = store.get('k')!.representations;
    assert.equal(held.byteLength, 2 * bigBody.length, 'no compressed copy before a client asks');
    assert.equal(held.negotiate('gzip, deflate, br'), held.negotiate('br'), 'one brotli copy, made once');
    assert.equal(store.size, 0, 'its brotli copy does not fit the budget: the entry leaves');

    const roomy = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    roomy.set('k', entry(bigBody));
    roomy.get('k')!.representations.negotiate('br');
    assert.equal(roomy.size, 1);
  });

  it('evicts by tag what it admitted', () => {
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    store.set('a', entry('{"id":1}', ['product:1']));
    store.set('b', entry('{"id":2}', ['product:2']));
    store.evictTags(['product:1']);
    assert.equal(store.get('a'), undefined);
    assert.equal(store.get('b')!.representations.identity.body, '{"id":2}');
  });
});
