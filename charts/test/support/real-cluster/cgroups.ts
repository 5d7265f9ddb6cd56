import { existsSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CGROUP_FS = '/sys/fs/cgroup';
const CGROUP_FS_TYPES = new Set(['tmpfs', 'cgroup', 'cgroup2']);

/**
 * The host's cgroup mounts (tmpfs first, then each hierarchy), as `source target type options`
 * lines for node.sh, which mounts them again inside `ip netns exec`'s fresh /sys.
 */
export function writeCgroupMounts(file: string): void {
  const lines = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .filter((line) => {
      const [, target, type] = line.split(' ');
      return type !== undefined && CGROUP_FS_TYPES.has(type) && (target === CGROUP_FS || target?.startsWith(`${CGROUP_FS}/`));
    });
  if (!lines.some((line) => line.split(' ')[2]?.startsWith('cgroup'))) {
    throw new Error(`no cgroup hierarchies mounted under ${CGROUP_FS}`);
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Every hierarchy's copy of the node's cgroup root (kubelet's cgroupRoot), where it exists. */
function rootsOf(cgroupRoot: string): string[] {
  return readdirSync(CGROUP_FS)
    .map((hierarchy) => join(CGROUP_FS, hierarchy, cgroupRoot))
    .filter((path) => existsSync(path) && statSync(path).isDirectory());
}

function descendantsFirst(path: string): string[] {
  const children = readdirSync(path, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return [...children.flatMap((child) => descendantsFirst(join(path, child.name))), path];
}

function killMembers(cgroup: string): number {
  const pids = readFileSync(join(cgroup, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return pids.length;
}

/** Blocks the thread: teardown also runs from an 'exit' handler, where nothing async runs. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Kills every process left in the node's cgroups (containers whose shim is gone keep running
 * otherwise) and removes the cgroups kubelet and runc made under cgroupRoot, in every hierarchy.
 * Synchronous, so an interrupted test run can still call it on exit.
 */
export function removeNodeCgroups(cgroupRoot: string): void {
  for (let attempt = 0; attempt < 50; attempt++) {
    const cgroups = rootsOf(cgroupRoot).flatMap(descendantsFirst);
    if (cgroups.length === 0) return;
    for (const cgroup of cgroups) {
      try {
        if (killMembers(cgroup) === 0) rmdirSync(cgroup);
      } catch {
        // Busy until its killed members have exited: the next round removes it.
      }
    }
    sleepSync(100);
  }
  throw new Error(`cgroups under ${cgroupRoot} could not be removed: ${rootsOf(cgroupRoot).join(', ')}`);
}
