import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import ts from 'typescript';
import { repoRoot, TYPE_CHECKED_PROJECTS } from './typecheck.js';

// Files git knows or would add: a new file counts before its first commit.
const tracked = async (...patterns: string[]) =>
  (
    await promisify(execFile)('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...patterns], { cwd: repoRoot })
  ).stdout
    .split('\n')
    .filter(Boolean);

test('every tracked TypeScript file belongs to a type-checked project', async () => {
  const covered = new Set<string>();
  for (const project of TYPE_CHECKED_PROJECTS) {
    const parsed = ts.getParsedCommandLineOfConfigFile(
      join(repoRoot, project, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => assert.fail(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
      },
    );
    for (const file of parsed?.fileNames ?? []) covered.add(file);
  }
  const uncovered = (await tracked('*.ts', '*.mts', '*.cts')).filter(
    (file) => !file.endsWith('.d.ts') && !covered.has(join(repoRoot, file)),
  );
  assert.deepEqual(uncovered, [], 'add these files to a tsconfig listed in scripts/test/typecheck.ts');
});

test('every tsconfig in the repo is one that the typecheck tests run', async () => {
  const projects = (await tracked('*tsconfig.json')).map((file) => file.replace(/\/?tsconfig\.json$/, ''));
  assert.deepEqual(projects.sort(), [...TYPE_CHECKED_PROJECTS].sort());
});
