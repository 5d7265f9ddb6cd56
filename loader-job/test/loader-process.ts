import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the loader CLI from source, as `catalog-loader <args>`, with its stdout/stderr piped. */
export function spawnLoaderCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'loader-job/src/cli.ts', ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Waits for the process to exit; resolves with its exit code (or signal) and output. */
export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, output })));
}

/** Resolves once a stdout line satisfies `matches` (the CLI logs one JSON object per line). */
export function stdoutLine(child: ChildProcess, matches: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      const found = lines.find(matches);
      if (found !== undefined) {
        child.stdout?.off('data', onData);
        resolve(found);
      }
    };
    child.stdout?.on('data', onData);
    child.on('close', () => reject(new Error('the loader exited before logging the awaited line')));
  });
}
