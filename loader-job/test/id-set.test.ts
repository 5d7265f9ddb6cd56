import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdSet } from '../src/load/id-set.js';

test('IdSet holds dense ids, grows past its first block, and keeps outliers beyond the bitset', () => {
  const ids = new IdSet();
  const members = [1, 7, 8, 65_535 * 8, 12_000_000, 2 ** 27, 2 ** 40, Number.MAX_SAFE_INTEGER];
  for (const id of members) ids.add(id);
  for (const id of members) assert.ok(ids.has(id), `has ${id}`);
  for (const id of [0, 2, 9, 12_000_001, 2 ** 27 + 1, 2 ** 40 + 1]) assert.ok(!ids.has(id), `lacks ${id}`);
});
