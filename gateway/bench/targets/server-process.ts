import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** A benchmark target running as its own process on a loopback port. */
export interface ServerProcess {
  readonly name: string;
  readonly baseUrl: string;
  readonly pid: number;
  /** Throws if the process has died: a target that crashes must fail the benchmark. */
  assertAlive(): void;
  stop(): Promise<void>;
}

export interface ServerProcessSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  port: number;
  /** stdout and stderr go here, to keep the benchmark's own output readable. */
  logFile: string;
  /** Resolves true once the server answers the way it does when ready. */
  isReady(baseUrl: string): Promise<boolean>;
  startupTimeoutMs: number;
}

export async function startServerProcess(spec: ServerProcessSpec): Promise<ServerProcess> {
  const baseUrl = `http://127.0.0.1:${spec.port}`;
  const log = createWriteStream(spec.logFile);
  await once(log, 'open');
  const child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', log, log] });
  const describeExit = async () =>
    `${spec.name} exited (code ${child.exitCode}, signal ${child.signalCode}); last log lines from ${spec.logFile}:\n` +
    (await readFile(spec.logFile, 'utf8')).split('\n').slice(-25).join('\n');

  const deadline = Date.now() + spec.startupTimeoutMs;
  while (!(await spec.isReady(baseUrl).catch(() => false))) {
    if (hasExited(child)) throw new Error(await describeExit());
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${spec.name} was not ready within ${spec.startupTimeoutMs} ms (log: ${spec.logFile})`);
    }
    await sleep(250);
  }
  return {
    name: spec.name,
    baseUrl,
    pid: child.pid!,
    assertAlive() {
      if (hasExited(child)) throw new Error(`${spec.name} died during the benchmark (log: ${spec.logFile})`);
    },
    async stop() {
      if (hasExited(child)) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      // Give graceful shutdown a bounded time, then make sure nothing is left running.
      const forceKill = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(forceKill);
      log.end();
    },
  };
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Readiness probe: true when `url` answers 2xx. */
export async function answersOk(url: string, init?: RequestInit): Promise<boolean> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(2000) });
  await response.arrayBuffer();
  return response.ok;
}
