// npm test's prerequisites step (scripts/prerequisites/install.sh), the README's fresh-machine
// line that runs it, and .ci/run, which runs nothing else.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { run, runOk } from './process.js';
import { repoRoot } from './typecheck.js';

const PREREQUISITES = join(repoRoot, 'scripts/prerequisites');
const asRoot = process.getuid?.() === 0;

describe('install-apt.sh', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'catalog-apt-'));
  chmodSync(scratch, 0o755);
  after(() => rmSync(scratch, { recursive: true, force: true }));

  /** install-apt.sh beside package lists of the test's own (the script reads the lists next to it). */
  async function withLists(name: string, everyRun: string[], rootOnly: string[]): Promise<string> {
    const folder = join(scratch, name);
    await runOk('mkdir', ['-m', '755', folder]);
    copyFileSync(join(PREREQUISITES, 'install-apt.sh'), join(folder, 'install-apt.sh'));
    writeFileSync(join(folder, 'apt-packages.txt'), `# every run\n${everyRun.join('\n')}\n`);
    writeFileSync(join(folder, 'apt-packages-root.txt'), `# root only\n${rootOnly.join('\n')}\n`);
    return join(folder, 'install-apt.sh');
  }
  /** Runs it as a user without root: `nobody` when the suite runs as root. */
  const runWithoutRoot = (script: string) => (asRoot ? run('runuser', ['-u', 'nobody', '--', 'bash', script]) : run('bash', [script]));

  test('without root, a missing package stops the run with the list and the exact command to install it', async () => {
    const script = await withLists('missing', ['bash', 'catalog-gateway-no-such-package', 'coreutils'], []);
    const { code, stderr } = await runWithoutRoot(script);
    assert.equal(code, 1);
    assert.match(stderr, /npm test needs these Debian\/Ubuntu packages, which are not installed:\n {2}catalog-gateway-no-such-package\n/);
    assert.match(stderr, /\n {2}sudo apt-get update && sudo apt-get install -y --no-install-recommends catalog-gateway-no-such-package\n/);
  });

  test('without root, packages only root-run tests use are not asked for', async () => {
    const script = await withLists('root-only', ['bash', 'coreutils'], ['catalog-gateway-no-such-package']);
    const { code, stdout, stderr } = await runWithoutRoot(script);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^apt: all \d+ packages present$/m);
  });

  test('as root, with every package present, it installs nothing (no apt-get update)', { skip: !asRoot && 'needs root' }, async () => {
    const script = await withLists('present', ['bash', 'coreutils'], ['dpkg']);
    const { code, stdout, stderr } = await run('bash', [script]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^apt: all \d+ packages present$/m);
  });
});

test('a second run of the prerequisites step finds everything present and installs nothing', async () => {
  // npm test ran it before this suite started: everything it installs is there now.
  const { code, stdout, stderr } = await run('bash', [join(PREREQUISITES, 'install.sh')]);
  assert.equal(code, 0, `${stdout}\n${stderr}`);
  assert.match(stdout, /^apt: all \d+ packages present$/m);
  assert.match(stdout, /^python tools: cached in /m);
  for (const phase of ['apt packages', 'go-built tools', 'python tools', 'image node']) {
    assert.match(stdout, new RegExp(`^::: ${phase}: \\d+s$`, 'm'));
  }
  assert.doesNotMatch(`${stdout}\n${stderr}`, /installing|building|fetching/i);
});

test('the pinned Go is what the tools are built with: $CATALOG_TOOLS_DIR/go', async () => {
  const toolsDir = mkdtempSync(join(tmpdir(), 'catalog-tools-'));
  try {
    const lib = join(repoRoot, 'scripts/tools/lib/go-tool.sh');
    const script = `source "${lib}" && use_pinned_go && echo "$GO_TOOLCHAIN" && "$CATALOG_TOOLS_DIR/go/bin/go" env GOVERSION && command -v go`;
    const [pinned, version, onPath] = (await runOk('bash', ['-c', script], { env: { CATALOG_TOOLS_DIR: toolsDir } })).trim().split('\n');
    assert.match(pinned!, /^go\d+\.\d+\.\d+$/);
    assert.equal(version, pinned);
    assert.equal(onPath, join(toolsDir, 'go/bin/go'));
  } finally {
    rmSync(toolsDir, { recursive: true, force: true });
  }
});

test('one go build names each program after its package (a major-version suffix is skipped)', async () => {
  const lib = join(repoRoot, 'scripts/tools/lib/go-tool.sh');
  const names = await runOk('bash', [
    '-c',
    `source "${lib}" && for p in "$@"; do program_name "$p"; done`,
    'names',
    'go.etcd.io/etcd/server/v3',
    'k8s.io/kubernetes/cmd/kubelet',
    'k8s.io/kube-state-metrics/v2',
  ]);
  assert.deepEqual(names.trim().split('\n'), ['server', 'kubelet', 'kube-state-metrics']);
});

test("the README's fresh-machine line is what .ci/run runs, and nothing else", () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const line = /^npm ci && npm test {2,}# /m.exec(readme);
  assert.ok(line, 'README.md shows `npm ci && npm test` as the test line');
  const commands = readFileSync(join(repoRoot, '.ci/run'), 'utf8')
    .split('\n')
    .filter((text) => text.startsWith('phase '))
    .map((text) => text.replace(/^phase "[^"]+" /, ''));
  assert.deepEqual(commands, ['npm ci', 'npm test']);
});
