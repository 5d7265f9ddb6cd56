// The LD_PRELOAD clock shims the coherence tests vary a process's clocks with (clock-shims.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monotonicClockRateEnv } from './clock-shims.js';
import { runOk } from './process.js';

test("the monotonic clock-rate shim runs a Node process's durations and timers at its rate, its wall clock at the real one", async () => {
  const script = `const started = performance.now(), wallStarted = Date.now();
setTimeout(() => console.log(JSON.stringify({ monotonic: performance.now() - started, wall: Date.now() - wallStarted })), 300);`;
  const output = await runOk(process.execPath, ['-e', script], { env: { ...process.env, ...(await monotonicClockRateEnv(0.5)) } });
  const { monotonic, wall } = JSON.parse(output) as { monotonic: number; wall: number };
  // 300 ms by the halved clock are 600 real ones: the timer fires late, and the duration reads half.
  assert.ok(monotonic >= 295, `the timer fired early by the process's own clock: ${monotonic} ms`);
  assert.ok(wall >= 590, `the timer fired after ${wall} real ms, not after 600`);
  assert.ok(monotonic / wall < 0.55, `${monotonic} ms by the process's clock for ${wall} real ms`);
});
