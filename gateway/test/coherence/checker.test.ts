import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedDeadline, checkHistory, formatSummary } from './checker.js';
import type { Outcome, OperationRecord, ReadRecord, WriteRecord } from './history.js';

// Hand-made histories of product 1 (initial slogan "v0"), times in ms on the run's clock.
const initial = new Map([
  [1, 'v0'],
  [2, 'w0'],
]);

const write = (version: number, start: number, end: number, outcome: Outcome = 200): WriteRecord => ({
  kind: 'write',
  client: 'writer-0',
  gateway: 'gateway-a',
  label: 'REST PUT /products/:id',
  path: 'PUT /products/1',
  start,
  end,
  outcome,
  product: 1,
  version,
  slogan: `v${version}`,
  acknowledged: typeof outcome === 'number' && outcome < 300,
});

const read = (slogan: string | null, start: number, end: number, outcome: Outcome = 200, product = 1): ReadRecord => ({
  kind: 'read',
  client: 'reader-0',
  gateway: 'gateway-b',
  label: 'REST /products/:id',
  path: `GET /products/${product}`,
  start,
  end,
  outcome,
  observed: [{ product, slogan }],
});

const check = (...operations: OperationRecord[]) => checkHistory(initial, operations);

describe('coherence checker', () => {
  it('reports a read that returned an older version than one acknowledged before it began, with its lag', () => {
    const { summary, stale } = check(write(1, 0, 10), write(2, 20, 30), read('v1', 100, 110));
    assert.equal(summary.stale, 1);
    assert.equal(stale[0]!.returnedVersion, 1);
    assert.equal(stale[0]!.requiredVersion, 2);
    // Read start (100) − acknowledgement of the oldest newer acknowledged write (v2 at 30).
    assert.equal(stale[0]!.lagMs, 70);
    assert.equal(summary.maxLagMs, 70);
  });

  it('measures the lag from the oldest acknowledged write newer than what the read returned', () => {
    const { stale } = check(write(1, 0, 10), write(2, 20, 30), write(3, 40, 50), read('v0', 100, 110));
    assert.equal(stale[0]!.requiredVersion, 3);
    assert.equal(stale[0]!.lagMs, 90);
  });

  it('accepts the initial value before any acknowledgement, and the newest value after it', () => {
    const { summary } = check(read('v0', 0, 5), write(1, 10, 20), read('v1', 30, 40), read('v0', 15, 40));
    assert.equal(summary.stale, 0, 'a read that began before the acknowledgement may return the old value');
    assert.equal(summary.constrainedObservations, 1);
    assert.equal(summary.impossible, 0);
  });

  it('treats refused and unanswered writes as legal but never required', () => {
    const operations = [
      write(1, 0, 10),
      write(2, 20, 30, 503),
      write(3, 40, 50, 'timeout'),
      read('v1', 100, 110),
      read('v2', 120, 130),
      read('v3', 140, 150),
    ];
    const { summary } = check(...operations);
    assert.equal(summary.stale, 0);
    assert.equal(summary.impossible, 0);
    assert.equal(summary.writesAcknowledged, 1);
    assert.equal(summary.writesRefused, 1);
    assert.equal(summary.writesUnanswered, 1);
  });

  it('reports values no write sent, answers without the product, and values read before their write was sent', () => {
    const { summary, impossible } = check(write(1, 50, 60), read('v9', 0, 5), read(null, 10, 15), read('v1', 20, 30));
    assert.equal(summary.impossible, 3);
    assert.deepEqual(
      impossible.map((entry) => entry.reason),
      ['a value no write ever sent', 'the answer did not hold the product', 'version 1 was sent only after the read ended'],
    );
  });

  it('judges only reads that answered 2xx, and each product of a list on its own', () => {
    const list: ReadRecord = {
      ...read('v0', 100, 110),
      observed: [
        { product: 1, slogan: 'v1' },
        { product: 2, slogan: 'w0' },
      ],
    };
    const { summary } = check(write(1, 0, 10), read('v0', 100, 110, 503), read('v0', 100, 110, 'timeout'), list);
    assert.equal(summary.reads, 3);
    assert.equal(summary.readsFailed, 2);
    assert.equal(summary.observations, 2);
    assert.equal(summary.stale, 0);
    assert.equal(check(write(1, 0, 10), { ...list, observed: [{ product: 1, slogan: 'v0' }] }).summary.stale, 1);
  });

  it('holds a write made in SQL to the capture bound: required only from its commit plus the bound', () => {
    const sql: WriteRecord = { ...write(1, 0, 10), outcome: 'committed', acknowledged: true, visibleWithinMs: 100 };
    assert.equal(check(sql, read('v0', 50, 60)).summary.stale, 0);
    assert.equal(check(sql, read('v0', 109, 115)).summary.stale, 0);
    const late = check(sql, read('v0', 111, 120));
    assert.equal(late.summary.stale, 1);
    assert.equal(late.summary.constrainedObservations, 1);
  });

  it("counts a SQL write's bound only while the primary answers: time it was unreachable is added", () => {
    assert.equal(boundedDeadline(10, 100, []), 110);
    // Unreachable from 50 to 80 (inside the bound), and from 200 to 300 (past it, so not counted).
    assert.equal(
      boundedDeadline(10, 100, [
        { from: 200, to: 300 },
        { from: 50, to: 80 },
      ]),
      140,
    );
    // An outage that began before the commit counts from the commit; one that pushes the deadline into another counts both.
    assert.equal(boundedDeadline(10, 100, [{ from: 0, to: 40 }]), 140);
    assert.equal(
      boundedDeadline(10, 100, [
        { from: 50, to: 80 },
        { from: 120, to: 130 },
      ]),
      150,
    );
    // Never reachable again: never required.
    assert.equal(boundedDeadline(10, 100, [{ from: 50, to: Infinity }]), Infinity);
    const sql: WriteRecord = { ...write(1, 0, 10), outcome: 'committed', acknowledged: true, visibleWithinMs: 100 };
    assert.equal(checkHistory(initial, [sql, read('v0', 125, 130)], [{ from: 50, to: 80 }]).summary.stale, 0);
    assert.equal(checkHistory(initial, [sql, read('v0', 141, 150)], [{ from: 50, to: 80 }]).summary.stale, 1);
  });

  it('summarises every count in one line', () => {
    const { summary } = check(write(1, 0, 10), write(2, 20, 30, 503), read('v0', 100, 110), read('v1', 100, 110, 'error'));
    assert.equal(
      formatSummary(summary),
      'reads 2 (1 failed), observations 1 (1 after an acknowledged write), writes 2 (acknowledged 1, refused 1, unanswered 0), stale 1 (max lag 90 ms), impossible 0',
    );
  });
});
