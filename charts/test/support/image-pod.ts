import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GroupProcess, run, type RunResult } from '../../../scripts/test/process.js';
import type { LocalImage } from './local-image.js';
import { expandReferences } from './pod-env.js';
import type { NetworkNamespace } from './real-cluster/netns.js';

/** A rendered container: what a pod spec says it runs. */
export interface RenderedContainer {
  command?: string[];
  args?: string[];
}

/**
 * A chart container run from a locally built image the way a pod runs it: the chart's files
 * placed where the pod mounts them, its command (or the image's entrypoint) and arguments with
 * $(VAR) expanded by the kubelet's rule, as the pod's uid, inside a private network namespace
 * (fixed ports, several servers, nothing on the host's network).
 */
export class ImagePod {
  constructor(
    readonly image: LocalImage,
    private readonly network: NetworkNamespace,
    private readonly user: string,
  ) {}

  /** Writes a file into the image's filesystem at `path`, refusing a symlink on the way there. */
  place(path: string, content: string): void {
    const parts = path.split('/').filter(Boolean);
    for (let depth = 1; depth < parts.length; depth++) {
      const partial = join(this.image.root, ...parts.slice(0, depth));
      try {
        if (lstatSync(partial).isSymbolicLink()) throw new Error(`${path}: /${parts.slice(0, depth).join('/')} is a symlink in the image`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    const target = join(this.image.root, ...parts);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }

  /** Each file of a ConfigMap's data, under `mountPath`. */
  placeConfigMap(mountPath: string, data: Record<string, string>): void {
    for (const [name, content] of Object.entries(data)) this.place(`${mountPath}/${name}`, content);
  }

  /** The host command line of the container's process with `env`, plus `extraArgs` (the test's own). */
  private commandLine(container: RenderedContainer, env: Record<string, string>, extraArgs: string[]): [string, string[]] {
    const args = (container.args ?? []).map((arg) => expandReferences(arg, env));
    const argv = container.command ? [...container.command, ...args] : this.image.entrypoint(args);
    return this.network.exec(...this.image.commandLine([...argv, ...extraArgs], env, this.user));
  }

  /** Runs the container's process to completion (an init container). */
  run(container: RenderedContainer, env: Record<string, string>, extraArgs: string[] = []): Promise<RunResult> {
    return run(...this.commandLine(container, env, extraArgs));
  }

  /** Starts the container's process (a server), its output in `logFile`. */
  start(name: string, container: RenderedContainer, env: Record<string, string>, logFile: string, extraArgs: string[] = []): GroupProcess {
    return new GroupProcess(name, ...this.commandLine(container, env, extraArgs), logFile);
  }

  /** Runs a command (a client: psql, redis-cli) inside the image and the namespace. */
  exec(argv: string[], env: Record<string, string> = {}): Promise<RunResult> {
    return run(...this.network.exec(...this.image.commandLine(argv, env, this.user)));
  }
}
