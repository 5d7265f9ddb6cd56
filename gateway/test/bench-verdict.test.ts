import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ratios, runFailures, type Cell, type TargetName } from '../bench/report.js';

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

test("a variant's share pools its processes against the control's, and each side's spread is the run's noise", () => {
  const measuredCell = (target: TargetName, requests: number, cpu: number): Cell => ({
    ...cell(target, {}),
    workload: 'REST mix, hot',
    requests,
    seconds: 10,
    rps: requests / 10,
    cpuMicrosPerRequest: { server: cpu, postgres: 0, redis: 0 },
  });
  const control = [
    measuredCell('gateway (control)', 1000, 80),
    measuredCell('gateway (control) (#2)', 800, 100),
    measuredCell('gateway (control) (#3)', 900, 90),
  ];
  const tracing = [
    measuredCell('gateway, tracing 1 %', 810, 90),
    measuredCell('gateway, tracing 1 % (#2)', 990, 70),
    measuredCell('gateway, tracing 1 % (#3)', 900, 80),
  ];
  const shown = ratios([...control, ...tracing]);
  const value = (name: string) => shown.find((ratio) => ratio.name === name)?.value;
  // Pooled: 2,700 requests in 30 s on each side; (1000 × 80 + 800 × 100 + 900 × 90) / 2,700 and
  // (810 × 90 + 990 × 70 + 900 × 80) / 2,700 µs per request.
  const pooled = 'REST mix, hot: gateway, tracing 1 % (3 processes pooled) / gateway (control) (3 processes pooled)';
  assert.equal(value(`${pooled}, RPS`), 1);
  assert.equal(value(`${pooled}, requests per CPU-second (target + Postgres + Redis)`), 241_000 / 2700 / (214_200 / 2700));
  assert.equal(shown.find((ratio) => ratio.name === `${pooled}, RPS`)?.target, 0.9);
  // Spread: the slowest process over the fastest, on each side.
  assert.equal(value('REST mix, hot: gateway (control), its 3 processes, slowest / fastest, RPS'), 0.8);
  assert.equal(value('REST mix, hot: gateway, tracing 1 %, its 3 processes, slowest / fastest, RPS'), 810 / 990);
  assert.equal(
    value('REST mix, hot: gateway, tracing 1 %, its 3 processes, slowest / fastest, requests per CPU-second (target + Postgres + Redis)'),
    70 / 90,
  );
  // A side missing one of its processes has no share.
  const missing = (cells: Cell[]) =>
    ratios(cells).find((ratio) => ratio.name.startsWith('REST mix, hot: gateway, tracing 1 % (3 processes pooled)'))?.value;
  assert.equal(missing([...control, ...tracing.slice(0, 2)]), null);
  assert.equal(missing([...control.slice(0, 2), ...tracing]), null);
});
