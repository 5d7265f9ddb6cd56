import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The gateway CLI (or another entry, such as `npm start`'s) as a child process, with its output collected for assertions. */
export class GatewayProcess {
  readonly child: ChildProcess;
  output = '';
  readonly exited: Promise<number | null>;

  constructor(args: string[], env: Record<string, string>, entry = 'gateway/src/cli.ts') {
    this.child = spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = once(this.child, 'exit').then(([code]) => code as number | null);
  }

  /** Resolves when `text` has appeared in the output; rejects if the process exits first. */
  async waitFor(text: string): Promise<void> {
    while (!this.output.includes(text)) {
      const exitedFirst = await Promise.race([
        once(this.child.stdout!, 'data').then(() => false),
        this.exited.then(() => true),
      ]);
      if (exitedFirst && !this.output.includes(text)) {
        throw new Error(`gateway exited before printing "${text}":\n${this.output}`);
      }
    }
  }

  stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}
