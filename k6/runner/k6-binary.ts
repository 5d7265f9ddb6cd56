// Finds the pinned k6: on PATH, else in $CATALOG_TOOLS_DIR/bin, else builds it with
// scripts/tools/install-k6.sh (go install) and uses that.
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const INSTALL_SCRIPT = fileURLToPath(new URL('../../scripts/tools/install-k6.sh', import.meta.url));

export function toolsDir(): string {
  return process.env.CATALOG_TOOLS_DIR ?? join(homedir(), '.cache', 'catalog-gateway', 'tools');
}

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

export async function findK6(): Promise<string> {
  const candidates = [
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, 'k6')),
    join(toolsDir(), 'bin', 'k6'),
  ];
  for (const candidate of candidates) {
    if (await executable(candidate)) return candidate;
  }
  console.error(`k6 not found on PATH or in ${toolsDir()}/bin: building it with ${INSTALL_SCRIPT}`);
  await run('bash', [INSTALL_SCRIPT], { env: { ...process.env, CATALOG_TOOLS_DIR: toolsDir() }, maxBuffer: 64 * 1024 * 1024 });
  const installed = join(toolsDir(), 'bin', 'k6');
  if (!(await executable(installed))) throw new Error(`${INSTALL_SCRIPT} ran but ${installed} is missing`);
  return installed;
}
