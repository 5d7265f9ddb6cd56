import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

// tsx runs the tests and the benchmark without checking types, and the build covers src/ only.
const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;

for (const [folder, what] of [
  ['test', 'the gateway tests'],
  ['bench', 'the gateway benchmark'],
] as const) {
  test(`tsc accepts ${what} against the gateway sources`, async () => {
    const tsconfig = new URL(`../${folder}/tsconfig.json`, import.meta.url).pathname;
    await promisify(execFile)(process.execPath, [tsc, '-p', tsconfig]).catch((error: { stdout?: string }) => {
      assert.fail(`tsc -p gateway/${folder} failed:\n${error.stdout ?? String(error)}`);
    });
  });
}
