// The one process wrapper of the tests and benchmarks: every program they start (servers, CLIs,
// clusters, tools run to completion) goes through here.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { waitFor } from './wait.js';

export type ProcessOptions = Pick<SpawnOptions, 'cwd' | 'env'>;

/**
 * A long-running program in its own process group. stop() ends the whole group; any groups still
 * alive when this process exits are killed too, so a crashed or interrupted test leaves nothing
 * running.
 */
export class GroupProcess {
  private readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  private captured = '';
  /** True once the program has exited and its output streams are drained. */
  private closed = false;

  /** Output goes to `logFile` (appended); without one, it is kept in memory (`output`). */
  constructor(
    readonly name: string,
    command: string,
    args: string[],
    readonly logFile?: string,
    options: ProcessOptions = {},
  ) {
    const spawnOptions = { cwd: options.cwd, env: options.env, detached: true };
    if (logFile === undefined) {
      this.child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
      const capture = (chunk: Buffer) => (this.captured += chunk.toString());
      this.child.stdout!.on('data', capture);
      this.child.stderr!.on('data', capture);
    } else {
      const log = openSync(logFile, 'a');
      this.child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', log, log] });
      closeSync(log);
    }
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code) => {
        this.closed = true;
        resolve(code);
      }),
    );
    this.child.on('error', (error) => (this.captured += `cannot run ${command}: ${error.message}\n`));
    liveGroups.add(this);
    void this.exited.then(() => liveGroups.delete(this));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The signal that ended the program, if one did. */
  get signalCode(): NodeJS.Signals | null {
    return this.child.signalCode;
  }

  get running(): boolean {
    return this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Everything the program printed so far (when it logs to memory, not to a file). */
  get output(): string {
    return this.logFile === undefined ? this.captured : readFileSync(this.logFile, 'utf8');
  }

  /** The last lines of the program's output, for failure messages. */
  logTail(lines = 25): string {
    const text = this.output.trimEnd().split('\n').slice(-lines).join('\n');
    return `--- ${this.name} (${this.running ? 'running' : 'exited'}), last ${lines} lines${this.logFile ? ` of ${this.logFile}` : ''}\n${text}`;
  }

  /** Resolves once the output contains `text` (or a line matching it); rejects at once if the program ends first. */
  async waitForOutput(text: string | ((line: string) => boolean), timeoutMs = 180_000): Promise<string> {
    const find = (): string | undefined =>
      typeof text === 'string' ? (this.output.includes(text) ? text : undefined) : this.output.split('\n').slice(0, -1).find(text);
    const awaited = typeof text === 'string' ? `"${text}"` : 'the awaited line';
    const result = await waitFor(
      `${this.name} to print ${awaited}`,
      async () => {
        const found = find();
        if (found !== undefined) return { found };
        return this.closed ? { found: undefined } : undefined;
      },
      timeoutMs,
      20,
    );
    if (result.found === undefined) throw new Error(`${this.name} ended before printing ${awaited}\n${this.logTail()}`);
    return result.found;
  }

  /** Polls `isReady` until it resolves true; rejects at once if the program exits first. */
  async waitUntilReady(isReady: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const ready = await waitFor(
      `${this.name} to be ready`,
      async () => (this.running ? (await isReady().catch(() => false)) || undefined : false),
      timeoutMs,
      100,
    ).catch(async (error: unknown) => {
      await this.stop(0);
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${this.logTail()}`, { cause: error });
    });
    if (!ready) {
      await this.exited; // its last output, or why it could not start, is in by then
      throw new Error(`${this.name} exited before it was ready\n${this.logTail()}`);
    }
  }

  /** Sends `signal` to the program alone (not its group), e.g. to test its own shutdown. */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child.kill(signal);
  }

  killGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  /** SIGTERM to the group, SIGKILL if it has not exited after graceMs; resolves with the exit code. */
  async stop(graceMs = 5000): Promise<number | null> {
    if (this.running) {
      this.killGroup(graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
      const timer = setTimeout(() => this.killGroup('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    return this.exited;
  }
}

const liveGroups = new Set<GroupProcess>();

function killAllGroups(): void {
  for (const group of liveGroups) group.killGroup('SIGKILL');
}

process.on('exit', killAllGroups);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllGroups();
    // A caller with its own handler (the test runner stopping Postgres) decides when to exit.
    if (process.listenerCount(signal) === 0) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  });
}

/** Starts a server and resolves once `isReady` says so; a server that exits first fails with its output. */
export async function startServer(
  name: string,
  command: string,
  args: string[],
  options: ProcessOptions & { logFile?: string; isReady: () => Promise<boolean>; timeoutMs: number },
): Promise<GroupProcess> {
  const server = new GroupProcess(name, command, args, options.logFile, options);
  await server.waitUntilReady(options.isReady, options.timeoutMs);
  return server;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  cwd?: string;
}

/** Runs a command to completion and collects its output; never throws on a non-zero exit. */
export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (child.stdin) {
      // A command may exit without reading all its input; its exit code tells what happened.
      child.stdin.on('error', () => {});
      child.stdin.end(options.input);
    }
  });
}

/** Like run, but a non-zero exit is an error carrying the command's output. */
export async function runOk(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${result.code}\n${result.stderr}\n${result.stdout}`.trim());
  }
  return result.stdout;
}
