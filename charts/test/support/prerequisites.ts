import { execFileSync } from 'node:child_process';

/** Whether a command is on PATH. */
export function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v "$0"`, command], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The `skip` option for a suite that needs this machine to provide something (root, a Debian
 * package): undefined when nothing is missing, else a message saying what is. Under CI=true a
 * missing prerequisite is a failure, not a skip: CI must prove what the suite proves.
 */
export function skipUnlessPresent(suite: string, missing: string[]): string | undefined {
  if (missing.length === 0) return undefined;
  const message = `${suite} needs ${missing.join(', ')}`;
  if (process.env.CI === 'true') throw new Error(`${message} (CI=true: failing instead of skipping)`);
  return message;
}
