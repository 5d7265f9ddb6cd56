// The linter and the formatter, run in CI (`.ci/run` runs `npm test`).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { ESLint } from 'eslint';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from './typecheck.js';

const run = (command: string, args: string[]) =>
  promisify(execFile)(command, args, { cwd: repoRoot, maxBuffer: 16 << 20 }).then(
    () => undefined,
    (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? String(error)}`,
  );

test('eslint finds nothing (eslint.config.js)', async () => {
  const eslint = new ESLint({ cwd: repoRoot });
  const results = await eslint.lintFiles(['.']);
  const findings = results.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0);
  assert.equal(findings, 0, await (await eslint.loadFormatter('stylish')).format(results));
});

test('the code is formatted (npm run format:check; `npm run format` fixes it)', async () => {
  const findings = await run('npm', ['run', '--silent', 'format:check']);
  if (findings !== undefined) assert.fail(findings);
});
