import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

// tsx runs the tests without checking types, and the build covers src/ only: check the tests too.
const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;
const tsconfig = new URL('./tsconfig.json', import.meta.url).pathname;

test('gateway tests typecheck against the gateway sources', async () => {
  await promisify(execFile)(process.execPath, [tsc, '-p', tsconfig]).catch((error: { stdout?: string }) => {
    assert.fail(`tsc -p gateway/test failed:\n${error.stdout ?? String(error)}`);
  });
});
