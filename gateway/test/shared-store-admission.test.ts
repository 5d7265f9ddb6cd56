// Which computed responses are offered to Redis: all of them until a route's reuse can be judged,
// then those of routes whose responses are read back, and any response computed a second time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CachedRoute } from '../src/cache/cached-routes.js';
import { SharedStoreAdmission } from '../src/cache/shared-admission.js';

const limits = { judgeAfter: 10, minReadsPerResponse: 0.5, window: 1_000, rememberedKeys: 1_000 };
const PRODUCT: CachedRoute = '/products/:product_id';
const STYLES: CachedRoute = '/products/:product_id/styles';

/** Offers the responses of `count` keys of `route` never seen before, from `first` on; returns how many were admitted. */
const computeNew = (admission: SharedStoreAdmission, route: CachedRoute, first: number, count: number) =>
  Array.from({ length: count }, (_, index) => admission.admit(`${route}/${first + index}`, route)).filter(Boolean).length;

describe('shared store admission', () => {
  it('admits every response of a route until it has computed enough to judge', () => {
    assert.equal(computeNew(new SharedStoreAdmission(limits), PRODUCT, 0, 10), 10);
  });

  it('declines a route whose responses are not read back, and only that route', () => {
    const admission = new SharedStoreAdmission(limits);
    computeNew(admission, PRODUCT, 0, 10);
    assert.equal(computeNew(admission, PRODUCT, 10, 100), 0);
    assert.equal(computeNew(admission, STYLES, 0, 10), 10);
  });

  it('admits a response computed again after its store was declined, and counts it as a read', () => {
    const admission = new SharedStoreAdmission(limits);
    computeNew(admission, PRODUCT, 0, 20);
    assert.equal(admission.admit(`${PRODUCT}/15`, PRODUCT), true, 'declined before, computed again');
    for (let key = 16; key < 20; key += 1) admission.admit(`${PRODUCT}/${key}`, PRODUCT);
    assert.equal(computeNew(admission, PRODUCT, 1_000, 1), 0, '5 reads of 26 computed');
    for (let key = 10; key < 15; key += 1) admission.admit(`${PRODUCT}/${key}`, PRODUCT);
    for (let read = 0; read < 6; read += 1) admission.read(PRODUCT);
    assert.equal(computeNew(admission, PRODUCT, 2_000, 1), 1, '16 reads of 32 computed');
  });

  it('forgets old counts: a route read back once, then never again, is judged by its recent responses', () => {
    const admission = new SharedStoreAdmission({ ...limits, window: 20 });
    computeNew(admission, PRODUCT, 0, 10);
    for (let read = 0; read < 30; read += 1) admission.read(PRODUCT);
    const admitted = computeNew(admission, PRODUCT, 10, 200);
    assert.ok(admitted > 10 && admitted < 200, `${admitted} admitted before the old reads faded`);
    assert.equal(computeNew(admission, PRODUCT, 1_000, 100), 0);
  });
});
