// tsx runs the tests, benchmarks and scripts without checking types; these projects are what
// tsc checks instead. Every tracked TypeScript file must belong to one of them
// (scripts/test/typecheck.test.ts), and each folder's typecheck test runs tsc over its own.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Every tsconfig that tsc checks, relative to the repo root. */
export const TYPE_CHECKED_PROJECTS = [
  'contract',
  'contract/test',
  'loader-job',
  'loader-job/test',
  'loader-job/bench',
  'gateway',
  'gateway/test',
  'gateway/bench',
  'gateway/ide',
  'charts/test',
  'dashboards',
  'k6',
  'scripts/dev',
] as const;

const tsc = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

/** Runs tsc over `project` (a folder holding a tsconfig.json); rejects with tsc's findings. */
export async function typeCheck(project: (typeof TYPE_CHECKED_PROJECTS)[number]): Promise<void> {
  await promisify(execFile)(process.execPath, [tsc, '-p', project, '--noEmit'], { cwd: repoRoot, maxBuffer: 16 << 20 }).catch(
    (error: { stdout?: string }) => {
      throw new Error(`tsc -p ${project} failed:\n${error.stdout ?? String(error)}`);
    },
  );
}
