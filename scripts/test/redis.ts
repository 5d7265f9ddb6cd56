import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './ports.js';

/** A real redis-server (from the system) on a private loopback port, without persistence. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stalls the server with SIGSTOP: connections stay open, nothing answers. */
  freeze(): void;
  /** Resumes a frozen server (SIGCONT). */
  thaw(): void;
}

const REDIS_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const proc = spawn(REDIS_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      proc.on('error', (error) => reject(new Error(`cannot run ${REDIS_BIN} (install Debian's redis-server): ${error.message}`)));
      proc.on('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
      proc.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
    start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
  };
}
