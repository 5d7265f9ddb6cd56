import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

// The dashboard builders are checked against the foundation SDK's types, the k6 runner and
// report against node's and the DOM's; tsx (which runs the tests) does not typecheck.
const tsc = new URL('../../node_modules/typescript/bin/tsc', import.meta.url).pathname;

for (const project of ['dashboards', 'k6']) {
  test(`${project}/ typechecks`, async () => {
    const tsconfig = new URL(`../../${project}/tsconfig.json`, import.meta.url).pathname;
    await promisify(execFile)(process.execPath, [tsc, '-p', tsconfig]).catch((error: { stdout?: string }) => {
      assert.fail(`tsc -p ${project} failed:\n${error.stdout ?? String(error)}`);
    });
  });
}
