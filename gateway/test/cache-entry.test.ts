import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeEntry, encodeEntry, type CacheEntry } from '../src/cache/entry.js';
import { RepresentationEncoder } from '../src/cache/representations.js';

const readAt = { epoch: '0123456789abcdef', seq: 42 };
const encoder = new RepresentationEncoder({ maxAgeSeconds: 60, staleWhileRevalidateSeconds: 0 });
const body = JSON.stringify({ id: 1, name: 'Café Crème' }, null, 2);
const entry: CacheEntry = {
  body,
  etag: encoder.encode(body).etag,
  route: '/products/:product_id',
  tags: ['product:1', 'products'],
  expiresAt: 1_800_000_000_000,
};

describe('a cache entry as Redis holds it', () => {
  it('comes back as it was stored, ETag, tags and read position, however many lines its body has', () => {
    assert.deepEqual(decodeEntry(encodeEntry(entry, readAt)), { entry, readAt });
    assert.deepEqual(decodeEntry(encodeEntry({ ...entry, tags: [] }, readAt)), { entry: { ...entry, tags: [] }, readAt });
  });

  it('gives a body the ETag it was stored with, without hashing it again: the same as hashing', () => {
    const stored = decodeEntry(encodeEntry(entry, readAt))!.entry;
    assert.equal(encoder.encode(stored.body, stored.etag).etag, encoder.encode(body).etag);
  });

  it('is refused when cut short, of an older format, with something else where the ETag goes, or without a read seq', () => {
    const text = encodeEntry(entry, readAt);
    assert.equal(decodeEntry(text.slice(0, text.indexOf(entry.route))), undefined);
    assert.equal(decodeEntry(`${entry.expiresAt}\n${entry.tags.join(' ')}\n${entry.route}\n${body}`), undefined);
    assert.equal(decodeEntry(`${entry.expiresAt}\n${entry.etag}\n${entry.tags.join(' ')}\n${entry.route}\n${body}`), undefined);
    assert.equal(decodeEntry(encodeEntry({ ...entry, etag: 'product:1' }, readAt)), undefined);
    assert.equal(decodeEntry(encodeEntry({ ...entry, route: '/admin' as CacheEntry['route'] }, readAt)), undefined);
    assert.equal(decodeEntry(encodeEntry(entry, { ...readAt, seq: Number.NaN })), undefined);
  });
});
