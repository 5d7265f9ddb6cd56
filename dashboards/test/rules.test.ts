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

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const headingAnchor = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

test('every alert has a runbook_url whose anchor is a section of the repository README', async () => {
  const { parse } = await import('yaml');
  const { readFile } = await import('node:fs/promises');
  const { RUNBOOK_BASE_URL } = await import('../src/rules/runbooks.js');
  const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const anchors = new Set([...readme.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => headingAnchor(heading!)));
  const { groups } = parse(await readFile(rulesFile, 'utf8')) as {
    groups: { rules: { alert?: string; annotations?: Record<string, string> }[] }[];
  };
  const alerts = groups.flatMap((group) => group.rules).filter((rule) => rule.alert !== undefined);
  assert.ok(alerts.length > 0, 'no alert in the rules file');
  const problems = alerts.flatMap(({ alert, annotations }) => {
    const url = annotations?.runbook_url;
    if (!url) return [`${alert}: no runbook_url`];
    const [base, anchor] = url.split('#');
    if (base !== RUNBOOK_BASE_URL) return [`${alert}: runbook_url ${url} is not in the README (${RUNBOOK_BASE_URL})`];
    return anchor && anchors.has(anchor) ? [] : [`${alert}: README has no section #${anchor}`];
  });
  assert.deepEqual(problems, []);
});
