import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from '../src/cache/memory-store.js';

const entry = (body: string, tags: string[] = []) => ({
  body,
  route: '/products/:product_id' as const,
  tags,
  expiresAt: Date.now() + 60_000,
});

describe('in-process store', () => {
  it('serves the same body as a string and as bytes, before and after the hot lane encoded it', () => {
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    const body = JSON.stringify({ name: 'Café Crème', slogan: '“quoted” ✓' });
    store.set('k', entry(body));
    assert.equal(store.get('k')!.body, body);
    assert.deepEqual(store.get('k')!.bytes, Buffer.from(body));
    assert.equal(store.get('k')!.body, body, 'still the same text once held as bytes only');
  });

  it('counts each body once against its byte budget', () => {
    const body = 'x'.repeat(1_000);
    // Room for ten entries of this size counted once (body + key + 512 bytes overhead), not for ten counted twice.
    const store = new MemoryStore({ maxEntries: 1_000, maxBytes: 10 * (1_000 + 'key-0'.length + 512) });
    for (let index = 0; index < 10; index += 1) store.set(`key-${index}`, entry(body));
    assert.equal(store.size, 10);
  });

  it('evicts by tag what it admitted, whichever form its body is in', () => {
    const store = new MemoryStore({ maxEntries: 10, maxBytes: 1024 ** 2 });
    store.set('a', entry('{"id":1}', ['product:1']));
    store.set('b', entry('{"id":2}', ['product:2']));
    void store.get('a')!.bytes;
    store.evictTags(['product:1']);
    assert.equal(store.get('a'), undefined);
    assert.equal(store.get('b')!.body, '{"id":2}');
  });
});
