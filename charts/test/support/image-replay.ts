import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { REPO_ROOT } from './chart.js';
import { runOk } from '../../../scripts/test/process.js';

/** A Dockerfile's final stage, laid out in a temp dir standing in for the image's filesystem. */
export interface ReplayedImage {
  /** Stands in for the stage's WORKDIR. */
  dir: string;
  /** The stage's ENV. */
  env: Record<string, string>;
  /** The ENTRYPOINT, to run with `dir` as working directory. */
  entrypoint: string[];
}

/**
 * Replays the final stage of a Dockerfile on this machine (there is no Docker engine here):
 * COPY from the context copies from the repo, COPY --from=build takes the repo's own build output
 * (`npm run build` runs the build stage's tsc), RUN runs in the stand-in WORKDIR with the stage's
 * ENV. What it proves is that the runtime stage's file set and install command make a working
 * program; what it cannot prove is the base image (the host's Node 20 runs it) or USER.
 */
export async function replayRuntimeStage(dockerfile: string): Promise<ReplayedImage> {
  const parsed = DockerfileParser.parse(readFileSync(join(REPO_ROOT, dockerfile), 'utf8'));
  const froms = parsed.getFROMs();
  const lastFromLine = froms[froms.length - 1]!.getRange().start.line;
  const stage = parsed.getInstructions().filter((i) => i.getRange().start.line > lastFromLine);

  const root = mkdtempSync(join(tmpdir(), 'catalog-image-'));
  let workdir = '/';
  const image: ReplayedImage = { dir: root, env: {}, entrypoint: [] };
  const hostPath = (path: string) => join(root, posix.resolve(workdir, path));

  for (const instruction of stage) {
    const args = instructionArgs(instruction);
    switch (instruction.getKeyword()) {
      case 'WORKDIR':
        workdir = posix.resolve(workdir, args[0]!);
        image.dir = hostPath('.');
        break;
      case 'ENV':
        for (const property of parsed
          .getENVs()
          .find((env) => env.getRange().start.line === instruction.getRange().start.line)!
          .getProperties()) {
          image.env[property.getName()] = property.getValue() ?? '';
        }
        break;
      case 'COPY': {
        const from = parsed
          .getCOPYs()
          .find((copy) => copy.getRange().start.line === instruction.getRange().start.line)!
          .getFromFlag();
        const destination = args[args.length - 1]!;
        for (const source of args.slice(0, -1)) {
          // The build stage's WORKDIR is /app: its outputs are the repo's own.
          const origin = from ? join(REPO_ROOT, posix.relative('/app', source)) : join(REPO_ROOT, source);
          const target = destination.endsWith('/') ? join(hostPath(destination), posix.basename(source)) : hostPath(destination);
          mkdirSync(dirname(target), { recursive: true });
          cpSync(origin, target, { recursive: true });
        }
        break;
      }
      case 'RUN':
        await runOk('sh', ['-c', instruction.getArgumentsContent()!], { cwd: image.dir, env: image.env });
        break;
      case 'ENTRYPOINT':
        image.entrypoint = JSON.parse(instruction.getArgumentsContent()!);
        break;
      default:
        // USER, EXPOSE and comments change nothing on the filesystem.
        break;
    }
  }
  return image;
}

function instructionArgs(instruction: Instruction): string[] {
  return instruction.getArguments().map((argument) => argument.getValue());
}
