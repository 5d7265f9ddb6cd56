import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const rulesFile = fileURLToPath(new URL('../prometheus-rules.yml', import.meta.url));
const unitTestDir = fileURLToPath(new URL('./rules/', import.meta.url));

/** promtool: the pinned build (scripts/tools/install-promtool.sh), first on PATH under the test runner; else Debian's prometheus package. */
async function promtool(args: string[], cwd?: string): Promise<string> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd });
    return stdout + stderr;
  } catch (error) {
    const failure = error as { code?: string; stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT') assert.fail("promtool is not on PATH: install Debian's prometheus package");
    assert.fail(`promtool ${args.join(' ')} failed:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
}

test('promtool check rules accepts the rules file', async () => {
  const output = await promtool(['check', 'rules', rulesFile]);
  assert.match(output, /SUCCESS: \d+ rules found/);
});

test('promtool unit tests of the alerts and recording rules pass', async () => {
  const files = (await readdir(unitTestDir)).filter((name) => name.endsWith('.test.yml'));
  assert.ok(files.length >= 2, `expected promtool test files in ${unitTestDir}`);
  const output = await promtool(['test', 'rules', ...files], unitTestDir);
  assert.equal(output.match(/SUCCESS/g)?.length, files.length, output);
});

test('every alert has a duration, a severity and summary/description annotations', async () => {
  const { parse } = await import('yaml');
  const { readFile } = await import('node:fs/promises');
  const { groups } = parse(await readFile(rulesFile, 'utf8')) as {
    groups: { rules: { alert?: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }[] }[];
  };
  const alerts = groups.flatMap((group) => group.rules).filter((rule) => rule.alert);
  assert.ok(alerts.length >= 8);
  for (const alert of alerts) {
    assert.match(alert.for ?? '', /^\d+[smh]$/, `${alert.alert} needs for:`);
    assert.match(alert.labels?.severity ?? '', /^(critical|warning)$/, `${alert.alert} needs a severity`);
    assert.ok(alert.annotations?.summary && alert.annotations.description, `${alert.alert} needs summary and description`);
  }
});
