// The chart test harness is TypeScript run through tsx, which does not type-check: tsc does here.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { run } from './support/run.js';

test('the chart tests and their support code type-check', async () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = fileURLToPath(new URL('tsconfig.json', import.meta.url));
  const result = await run(process.execPath, [tsc, '-p', project]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
});
