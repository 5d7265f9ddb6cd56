import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export interface ChildMeasurement {
  readonly seconds: number;
  /** Peak resident set size (VmHWM) of the child, in bytes. */
  readonly peakRssBytes: number;
  readonly exitCode: number | null;
  readonly output: string;
}

const POLL_MS = 100;

async function highWaterMark(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kilobytes = status?.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
  return kilobytes === undefined ? undefined : Number(kilobytes) * 1024;
}

/**
 * Runs a command and measures its wall time and peak RSS: VmHWM is the kernel's own
 * high-water mark, so polling it only has to catch the child before it exits.
 */
export async function runMeasured(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<ChildMeasurement> {
  const startedAt = performance.now();
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  let peakRssBytes = 0;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let running = true;
  void exited.then(() => (running = false));
  while (running) {
    peakRssBytes = Math.max(peakRssBytes, (await highWaterMark(child.pid!)) ?? 0);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, POLL_MS))]);
  }
  const exitCode = await exited;
  return { seconds: (performance.now() - startedAt) / 1000, peakRssBytes, exitCode, output };
}
