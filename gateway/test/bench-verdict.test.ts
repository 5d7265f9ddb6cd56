import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFailures, type Cell, type TargetName } from '../bench/report.js';

function cell(target: TargetName, errorDetail: Partial<Cell['errorDetail']>): Cell {
  const detail = { connectErrors: 0, readErrors: 0, writeErrors: 0, timeouts: 0, statusErrors: 0, ...errorDetail };
  return {
    workload: 'Storefront deep category page by price',
    target,
    rounds: 3,
    planWrapped: false,
    machineLoad: 1,
    cpuMicrosPerRequest: { server: 100, postgres: 100, redis: 0 },
    requests: 1000,
    seconds: 21,
    rps: 47.6,
    p50Ms: 2800,
    p95Ms: 3200,
    p99Ms: 3400,
    errors: Object.values(detail).reduce((sum, count) => sum + count, 0),
    errorDetail: detail,
  };
}

test("a compared target's timeouts are its result, not a failed run", () => {
  assert.deepEqual(runFailures([cell('postgraphile', { timeouts: 48 }), cell('gateway', {})]), []);
});

test("a compared target's wrong answers and socket errors still fail the run", () => {
  const failures = runFailures([cell('postgraphile', { timeouts: 5, statusErrors: 2 }), cell('postgraphile', { readErrors: 1 })]);
  assert.equal(failures.length, 2);
  assert.match(failures[0]!, /^postgraphile \(Storefront deep category page by price\): 7 errors .*"statusErrors":2/);
});

test('any error of the gateway or the bare server fails the run, timeouts included', () => {
  const failures = runFailures([
    cell('gateway', { timeouts: 1 }),
    cell('bare node:http', { timeouts: 1 }),
    cell('gateway (baseline)', { timeouts: 1 }),
  ]);
  assert.deepEqual(
    failures.map((failure) => failure.slice(0, failure.indexOf(' (Storefront'))),
    ['gateway', 'bare node:http', 'gateway (baseline)'],
  );
});
