import { fileURLToPath } from 'node:url';
import { GroupProcess } from '../../scripts/test/process.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The loader CLI from source (`catalog-loader <args>`) as a child process, its output kept. */
export function startLoaderCli(args: string[], env: NodeJS.ProcessEnv = {}): GroupProcess {
  return new GroupProcess('catalog-loader', process.execPath, ['--import', 'tsx', 'loader-job/src/cli.ts', ...args], undefined, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
  });
}

/** Runs the loader CLI to completion: its exit code and everything it printed. */
export async function runLoaderCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  const loader = startLoaderCli(args, env);
  const code = await loader.exited;
  return { code, output: loader.output };
}
