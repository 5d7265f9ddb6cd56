import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { sleepSync } from './cgroups.js';
import { run, runOk } from '../../../../scripts/test/process.js';

/**
 * A network namespace of the test's own, with a bridge the node's pods attach to. Nothing the
 * cluster listens on or sends to exists outside it (and loopback).
 */
export class NetworkNamespace {
  /** Whether /run/netns was a mount before the test: `ip netns add` mounts it if not. */
  private readonly runNetnsWasMounted = isMountPoint('/run/netns');

  constructor(readonly name: string) {}

  /** The command line that runs a program inside the namespace. */
  exec(command: string, args: string[] = []): [string, string[]] {
    return ['ip', ['netns', 'exec', this.name, command, ...args]];
  }

  async run(command: string, args: string[] = [], input?: string) {
    const [ip, ipArgs] = this.exec(command, args);
    return run(ip, ipArgs, { input });
  }

  async runOk(command: string, args: string[] = [], input?: string): Promise<string> {
    const [ip, ipArgs] = this.exec(command, args);
    return runOk(ip, ipArgs, { input });
  }

  /**
   * Creates the namespace: loopback up, forwarding on (namespaced sysctls), and the bridge with
   * the node's address, which must exist before the API server can advertise it. The service
   * range is routed to the bridge so programs in the namespace reach ClusterIPs (kube-proxy
   * rewrites them in OUTPUT).
   */
  async create(bridge: string, nodeAddress: string, serviceCidr: string): Promise<void> {
    await runOk('ip', ['netns', 'add', this.name]);
    for (const args of [
      ['link', 'set', 'lo', 'up'],
      ['link', 'add', bridge, 'type', 'bridge'],
      ['addr', 'add', nodeAddress, 'dev', bridge],
      ['link', 'set', bridge, 'up'],
      ['route', 'add', serviceCidr, 'dev', bridge],
    ]) {
      await this.runOk('ip', args);
    }
    await this.runOk('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
  }

  /**
   * Creates a namespace with loopback alone, up, and `address` (a /32) on it too: a private
   * network for servers on fixed ports, and a source address that is not 127.0.0.1.
   */
  async createLoopback(address: string): Promise<void> {
    await runOk('ip', ['netns', 'add', this.name]);
    await this.runOk('ip', ['link', 'set', 'lo', 'up']);
    await this.runOk('ip', ['addr', 'add', `${address}/32`, 'dev', 'lo']);
  }

  /** Processes whose network namespace this is (the node's daemons, shims, hostNetwork pods). */
  private pids(): number[] {
    try {
      return execFileSync('ip', ['netns', 'pids', this.name], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /**
   * Kills what still runs in the namespace and deletes it (its bridge, veth ends and iptables
   * rules go with it); unmounts /run/netns when the test mounted it and it is empty again.
   * Synchronous, so an interrupted test run can still call it on exit.
   */
  delete(): void {
    for (let attempt = 0; attempt < 50; attempt++) {
      const pids = this.pids();
      if (pids.length === 0) break;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      sleepSync(100);
    }
    execFileSync('ip', ['netns', 'delete', this.name], { stdio: 'ignore' });
    if (!this.runNetnsWasMounted && isMountPoint('/run/netns') && readdirSync('/run/netns').length === 0) {
      execFileSync('umount', ['/run/netns']);
      rmdirSync('/run/netns');
    }
  }
}

function isMountPoint(path: string): boolean {
  return (
    existsSync(path) &&
    readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .some((line) => line.split(' ')[1] === path)
  );
}
