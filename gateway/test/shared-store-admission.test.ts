// Which computed responses are offered to Redis: all of them until a route's reuse can be judged,
// then those of routes whose stored responses are read back, and a sample of the others.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SharedStoreAdmission } from '../src/cache/shared-admission.js';

const limits = { judgeAfterStores: 10, minReadsPerStore: 0.5, sampleShare: 0, window: 1_000 };
const offers = (admission: SharedStoreAdmission, route: '/products/:product_id' | '/products/:product_id/styles', count: number) =>
  Array.from({ length: count }, () => admission.admit(route)).filter(Boolean).length;

describe('shared store admission', () => {
  it('admits every store of a route until it has made enough to judge', () => {
    assert.equal(offers(new SharedStoreAdmission(limits), '/products/:product_id', 10), 10);
  });

  it('stops offering a route whose stores are not read back, and only that route', () => {
    const admission = new SharedStoreAdmission(limits);
    offers(admission, '/products/:product_id', 10);
    assert.equal(offers(admission, '/products/:product_id', 100), 0);
    assert.equal(offers(admission, '/products/:product_id/styles', 10), 10);
  });

  it('offers again once the route is read back often enough per store', () => {
    const admission = new SharedStoreAdmission(limits);
    offers(admission, '/products/:product_id', 10);
    for (let read = 0; read < 4; read += 1) admission.read('/products/:product_id');
    assert.equal(admission.admit('/products/:product_id'), false, '4 reads for 10 stores');
    admission.read('/products/:product_id');
    assert.equal(admission.admit('/products/:product_id'), true, '5 reads for 10 stores');
  });

  it('keeps storing a sample of a route it judged not worth it, so a change in its reuse is seen', () => {
    const admission = new SharedStoreAdmission({ ...limits, sampleShare: 1 / 4 });
    offers(admission, '/products/:product_id', 10);
    const sampled = offers(admission, '/products/:product_id', 4_000);
    assert.ok(sampled > 800 && sampled < 1_200, `${sampled} of 4,000 offered, about a quarter`);
  });

  it('forgets old counts: a route read back once, then never again, is judged by its recent stores', () => {
    const admission = new SharedStoreAdmission({ ...limits, window: 20 });
    offers(admission, '/products/:product_id', 10);
    for (let read = 0; read < 30; read += 1) admission.read('/products/:product_id');
    // Admitted on its reads until the halvings bring them under half the stores.
    const admitted = offers(admission, '/products/:product_id', 200);
    assert.ok(admitted > 10 && admitted < 200, `${admitted} admitted before the old reads faded`);
    assert.equal(offers(admission, '/products/:product_id', 100), 0);
  });
});
