import { run, runOk, type RunResult } from '../../../scripts/test/process.js';

/** What an image's config says about how it runs. */
export interface ImageConfig {
  User: string;
  WorkingDir: string;
  Env: string[];
  Entrypoint: string[] | null;
  Cmd: string[] | null;
}

export async function imageConfig(ref: string): Promise<ImageConfig> {
  const [image] = JSON.parse(await runOk('podman', ['image', 'inspect', ref]));
  return image.Config as ImageConfig;
}

/** The image's size in podman storage, in bytes. */
export async function imageSize(ref: string): Promise<number> {
  return Number((await runOk('podman', ['image', 'inspect', '--format', '{{.Size}}', ref])).trim());
}

/**
 * An image's filesystem, mounted from podman storage (a throwaway container's writable layer), in
 * which commands run chrooted as the image's USER, in its WORKDIR, with its ENV: what a runtime
 * does, short of namespaces and cgroups. `podman run` itself fails on this host's hybrid cgroups.
 * Files are read only through run(): the root holds absolute symlinks (/var/run → /run) that
 * would lead to the host's own files if followed from outside.
 */
export class LocalImage {
  private constructor(
    readonly ref: string,
    readonly config: ImageConfig,
    private readonly container: string,
    readonly root: string,
  ) {}

  static async mount(ref: string): Promise<LocalImage> {
    const config = await imageConfig(ref);
    const container = (await runOk('podman', ['create', ref])).trim();
    const root = (await runOk('podman', ['mount', container])).trim();
    return new LocalImage(ref, config, container, root);
  }

  /**
   * The host command line that runs argv inside the image; `env` is added to the image's ENV. It
   * gets a private mount namespace holding the host's /dev and a fresh /proc for the image (as a
   * runtime provides them), gone when the command ends.
   */
  commandLine(argv: string[], env: Record<string, string> = {}, user = this.config.User || '0:0'): [string, string[]] {
    const environment = [...this.config.Env, ...Object.entries(env).map(([name, value]) => `${name}=${value}`)];
    const enter =
      'root=$1 user=$2; shift 2; mount --rbind /dev "$root/dev" && mount -t proc proc "$root/proc" && exec chroot --userspec="$user" "$root" "$@"';
    return [
      'unshare',
      [
        '--mount',
        '--fork',
        '--',
        'sh',
        '-c',
        enter,
        'sh',
        this.root,
        user,
        '/usr/bin/env',
        '-i',
        ...environment,
        '/bin/sh',
        '-c',
        'cd "$0" && exec "$@"',
        this.config.WorkingDir || '/',
        ...argv,
      ],
    ];
  }

  /** Runs argv inside the image to completion (see commandLine). */
  run(argv: string[], env: Record<string, string> = {}, user?: string): Promise<RunResult> {
    return run(...this.commandLine(argv, env, user));
  }

  /** The image's ENTRYPOINT followed by args. */
  entrypoint(args: string[]): string[] {
    return [...(this.config.Entrypoint ?? []), ...args];
  }

  async remove(): Promise<void> {
    await run('podman', ['umount', this.container]);
    await run('podman', ['rm', '--force', this.container]);
  }
}
