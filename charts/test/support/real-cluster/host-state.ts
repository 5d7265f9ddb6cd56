import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Host-wide kernel settings kubelet changes whatever its network namespace (they are not
 * namespaced): recorded before the node starts, written back at teardown.
 */
const KUBELET_SYSCTLS = ['vm/overcommit_memory', 'kernel/panic', 'kernel/panic_on_oops'];

/**
 * Paths outside the cluster's dir that kubelet and the CNI library write to regardless of their
 * configured roots. Removed at teardown when the test created them.
 */
const LEAKED_DIRS = ['/var/lib/kubelet', '/var/lib/cni', '/var/log/pods', '/var/log/containers'];

/** The CNI library's result cache: one file per attachment, named after the network. */
const CNI_CACHE = '/var/lib/cni/results';
/** kubelet's symlinks to container logs, wherever its podLogsDir is. */
const CONTAINER_LOG_LINKS = '/var/log/containers';

export interface HostSnapshot {
  sysctls: Record<string, string>;
  absentDirs: string[];
}

export function recordHostState(): HostSnapshot {
  const sysctls = Object.fromEntries(KUBELET_SYSCTLS.map((key) => [key, readFileSync(join('/proc/sys', key), 'utf8').trim()]));
  return { sysctls, absentDirs: LEAKED_DIRS.filter((dir) => !existsSync(dir)) };
}

/**
 * Puts back what recordHostState saw. In dirs that existed before, only this cluster's entries go:
 * CNI cache files named after its network, log symlinks pointing into its dir.
 */
export function restoreHostState(snapshot: HostSnapshot, cniNetwork: string, clusterDir: string): void {
  for (const [key, value] of Object.entries(snapshot.sysctls)) {
    writeFileSync(join('/proc/sys', key), value);
  }
  removeEntries(CNI_CACHE, (name) => name.startsWith(`${cniNetwork}-`));
  removeEntries(CONTAINER_LOG_LINKS, (name) => readlinkSync(join(CONTAINER_LOG_LINKS, name)).startsWith(`${clusterDir}/`));
  for (const dir of snapshot.absentDirs) rmSync(dir, { recursive: true, force: true });
}

function removeEntries(dir: string, matches: (name: string) => boolean): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).filter(matches)) rmSync(join(dir, name), { force: true });
}
