import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/**
 * A long-running program in its own process group, its output in a log file. stop() ends the
 * whole group; any groups still alive when this process exits are killed too, so a crashed or
 * interrupted test leaves nothing running.
 */
export class GroupProcess {
  private readonly child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    command: string,
    args: string[],
    readonly logFile: string,
    options: Pick<SpawnOptions, 'cwd' | 'env'> = {},
  ) {
    const log = openSync(logFile, 'a');
    this.child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
    this.child.on('error', () => {});
    liveGroups.add(this);
    void this.exited.then(() => liveGroups.delete(this));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines of the program's log, for failure messages. */
  logTail(lines = 25): string {
    const text = readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    return `--- ${this.name} (${this.running ? 'running' : 'exited'}), last ${lines} lines of ${this.logFile}\n${text}`;
  }

  killGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  /** SIGTERM to the group, SIGKILL if it has not exited after graceMs. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) return;
    this.killGroup('SIGTERM');
    const timer = setTimeout(() => this.killGroup('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
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
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  });
}

/** Polls check() until it returns a value (not undefined) or the deadline passes. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
