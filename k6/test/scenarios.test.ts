import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findK6 } from '../runner/k6-binary.js';
import { SCENARIOS, parseRunOptions, UsageError } from '../runner/options.js';

const run = promisify(execFile);

interface Inspected {
  scenarios: Record<string, { executor: string; rate?: number; stages?: { target: number }[]; maxVUs?: number }>;
  thresholds: Record<string, string[]>;
  systemTags: string[];
}

/** What k6 itself makes of a scenario file's options under the given environment. */
async function inspect(scenario: string, env: Record<string, string> = {}): Promise<Inspected> {
  const k6 = await findK6();
  const file = fileURLToPath(new URL(`../scenarios/${scenario}.js`, import.meta.url));
  const envFlags = Object.entries(env).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  const { stdout } = await run(k6, ['inspect', ...envFlags, file]);
  return JSON.parse(stdout) as Inspected;
}

test('every scenario asks for a request rate (arrival-rate executors) and carries the SLO thresholds', async () => {
  assert.deepEqual(SCENARIOS, ['graphql', 'mix', 'ramp', 'smoke', 'soak']);
  for (const scenario of SCENARIOS) {
    const options = await inspect(scenario);
    for (const [name, executor] of Object.entries(options.scenarios)) {
      assert.match(executor.executor, /arrival-rate$/, `${scenario}/${name}`);
    }
    assert.deepEqual(options.thresholds.http_req_duration, ['p(95)<50']);
    assert.deepEqual(options.thresholds.http_req_failed, ['rate<0.01']);
    assert.ok(!options.systemTags.includes('url'), 'per-URL tags would explode remote-write series');
  }
});

test('the ramp climbs 1 → 10 → 100 → 1,000 requests per second and scales with PEAK_RATE', async () => {
  const ramp = (await inspect('ramp')).scenarios.ramp!;
  assert.equal(ramp.executor, 'ramping-arrival-rate');
  assert.deepEqual(
    ramp.stages!.map((stage) => stage.target),
    [10, 100, 1000, 1000],
  );
  const small = (await inspect('ramp', { PEAK_RATE: '200', STAGE_DURATION: '5s' })).scenarios.ramp!;
  assert.deepEqual(
    small.stages!.map((stage) => stage.target),
    [2, 20, 200, 200],
  );
});

test('RATE and thresholds come from the environment; a bad value stops k6 with its name', async () => {
  const mix = await inspect('mix', { RATE: '7', DURATION: '3s', P95_MS: '80' });
  assert.equal(mix.scenarios.mix!.rate, 7);
  assert.deepEqual(mix.thresholds.http_req_duration, ['p(95)<80']);
  await assert.rejects(inspect('smoke', { RATE: 'lots' }), /RATE must be a number >= 1, got \\?"lots\\?"/);
});

test('the runner rejects unknown scenarios and malformed options with a clear message', () => {
  assert.throws(
    () => parseRunOptions(['nope'], '/tmp'),
    (error: Error) => error instanceof UsageError && /unknown scenario "nope"/.test(error.message),
  );
  assert.throws(() => parseRunOptions([], '/tmp'), /no scenario given/);
  assert.throws(() => parseRunOptions(['smoke', '--base-url', 'localhost'], '/tmp'), /--base-url must be an http\(s\) URL/);
  assert.throws(() => parseRunOptions(['smoke', '--env', 'rate=5'], '/tmp'), /--env wants NAME=VALUE/);
  const options = parseRunOptions(
    ['mix', '--rate', '20', '--env', 'PRODUCT_COUNT=500', '--prometheus-url', 'http://127.0.0.1:9090/'],
    '/tmp/r',
  );
  assert.deepEqual(options.env, { PRODUCT_COUNT: '500', RATE: '20' });
  assert.equal(options.prometheusUrl, 'http://127.0.0.1:9090');
});
