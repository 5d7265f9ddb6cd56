#!/usr/bin/env node
// `npm run bench -- <name> [args]`: runs the `bench` script of the workspace that owns <name>.
// Benchmarks are never part of `npm test`.
import { spawnSync } from 'node:child_process';

const BENCHES = {
  loader: ['loader-job', 'bench'],
  gateway: ['gateway', 'bench'],
  chaos: ['gateway', 'bench:chaos'],
  capture: ['gateway', 'bench:capture'],
};
const [name, ...args] = process.argv.slice(2);
const [workspace, script] = BENCHES[name] ?? [];
if (!workspace) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [args]`);
  process.exit(2);
}
const result = spawnSync('npm', ['run', script, '-w', workspace, '--', ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
