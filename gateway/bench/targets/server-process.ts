import { startServer } from '../../../scripts/test/process.js';

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
  const server = await startServer(spec.name, spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    logFile: spec.logFile,
    isReady: () => spec.isReady(baseUrl),
    timeoutMs: spec.startupTimeoutMs,
  });
  return {
    name: spec.name,
    baseUrl,
    pid: server.pid!,
    assertAlive() {
      if (!server.running) throw new Error(`${spec.name} died during the benchmark\n${server.logTail()}`);
    },
    async stop() {
      // Give graceful shutdown a bounded time, then make sure nothing is left running.
      await server.stop(15_000);
    },
  };
}
