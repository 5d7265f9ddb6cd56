#!/usr/bin/env node
// The Node check runs before the gateway is linked: on a Node too old to link it, a reason, not a linker error.
import { nodeSupport } from '../dist/runtime/node-support.js';

const support = nodeSupport();
if (support.verdict === 'refused') {
  process.stderr.write(`${support.message}\n`);
  process.exit(1);
}
await import('../dist/cli.js');
