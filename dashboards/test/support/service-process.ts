// A server process for tests: spawned, awaited until its readiness URL answers 2xx, and
// stopped with SIGTERM. Start-up failures carry the process' stderr.
import { spawn, type SpawnOptions } from 'node:child_process';
import { once } from 'node:events';

export interface ServiceProcess {
  stop(): Promise<void>;
}

export async function startServiceProcess(spec: {
  name: string;
  command: string;
  args: string[];
  options?: Pick<SpawnOptions, 'cwd' | 'env'>;
  readyUrl: string;
  timeoutMs: number;
}): Promise<ServiceProcess> {
  const child = spawn(spec.command, spec.args, { ...spec.options, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.on('error', (error) => reject(new Error(`cannot run ${spec.command} for ${spec.name}: ${error.message}`)));
    child.on('exit', (code) => reject(new Error(`${spec.name} exited with ${code}:\n${log}`)));
  });
  const ready = (async () => {
    const deadline = Date.now() + spec.timeoutMs;
    while (Date.now() < deadline) {
      if (await fetch(spec.readyUrl).then((r) => r.ok, () => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${spec.name} not ready at ${spec.readyUrl} after ${spec.timeoutMs} ms:\n${log}`);
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  failed.catch(() => undefined);
  return {
    async stop() {
      child.removeAllListeners('exit');
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
