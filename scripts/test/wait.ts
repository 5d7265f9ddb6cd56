// The one readiness wait of the tests and benchmarks: poll until something is there.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls check() until it returns a value (not undefined) or the deadline passes; a check that
 * throws counts as "not yet", and its last error is part of the timeout's message.
 */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 250): Promise<T> {
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
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`, { cause: lastError });
    }
    await sleep(intervalMs);
  }
}

/** Readiness probe: true when `url` answers 2xx (within 2 s). */
export async function answersOk(url: string, init?: RequestInit): Promise<boolean> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(2000) });
  await response.arrayBuffer();
  return response.ok;
}
