import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runOk } from './process.js';

/** The LD_PRELOAD clock shims of this folder, each in its own directory: <name>/<name>.c. */
export type ClockShim = 'wall-clock-offset' | 'monotonic-clock-rate';

/** A clock shim's library, compiled once per source (Debian's gcc), cached beside the other test tools. */
export async function clockShim(name: ClockShim): Promise<string> {
  const source = fileURLToPath(new URL(`${name}/${name}.c`, import.meta.url));
  const digest = createHash('sha256')
    .update(await readFile(source))
    .digest('hex')
    .slice(0, 12);
  const library = join(homedir(), '.cache/catalog-gateway', `${name}-${digest}.so`);
  if (!existsSync(library)) {
    await mkdir(dirname(library), { recursive: true });
    const building = `${library}.${process.pid}`;
    await runOk('gcc', ['-shared', '-fPIC', '-O2', '-o', building, source, '-ldl']);
    await rename(building, library);
  }
  return library;
}

/** What a process's environment needs for its monotonic clocks to run at `rate` times the real rate (monotonic-clock-rate/). */
export async function monotonicClockRateEnv(rate: number): Promise<Record<string, string>> {
  return { LD_PRELOAD: await clockShim('monotonic-clock-rate'), MONOTONIC_CLOCK_RATE: String(rate) };
}
