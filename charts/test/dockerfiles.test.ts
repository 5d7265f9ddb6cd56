// gateway/Dockerfile and loader-job/Dockerfile, checked statically: this machine has no Docker
// engine, so the images are never built or run here.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DockerfileParser, type Dockerfile } from 'dockerfile-ast';
import { REPO_ROOT } from './support/chart.js';

const IMAGES = [
  { dockerfile: 'gateway/Dockerfile', workspace: 'gateway', entrypoint: 'gateway/bin/catalog-gateway.js' },
  { dockerfile: 'loader-job/Dockerfile', workspace: 'loader-job', entrypoint: 'loader-job/bin/catalog-loader.js' },
];

const dockerignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

/** True when .dockerignore keeps the path out of the build context (prefix or ** patterns). */
function ignoredByDockerignore(path: string): boolean {
  const clean = path.replace(/\/$/, '');
  return dockerignore.some((pattern) => {
    const stripped = pattern.replace(/^\*\*\//, '');
    if (stripped !== pattern) return clean.split('/').includes(stripped);
    return clean === pattern || clean.startsWith(`${pattern}/`);
  });
}

function stages(dockerfile: Dockerfile) {
  const froms = dockerfile.getFROMs();
  return froms.map((from, index) => {
    const start = from.getRange().start.line;
    const end = froms[index + 1]?.getRange().start.line ?? Number.POSITIVE_INFINITY;
    const instructions = dockerfile.getInstructions().filter((i) => {
      const line = i.getRange().start.line;
      return line > start && line < end;
    });
    return { from, instructions };
  });
}

for (const image of IMAGES) {
  describe(image.dockerfile, () => {
    const text = readFileSync(join(REPO_ROOT, image.dockerfile), 'utf8');
    const dockerfile = DockerfileParser.parse(text);
    const [build, runtime, ...extra] = stages(dockerfile);

    test('is multi-stage: a full node build stage, a slim runtime stage', () => {
      assert.equal(extra.length, 0);
      assert.ok(build && runtime);
      assert.equal(build.from.getImageName(), 'node');
      assert.doesNotMatch(build.from.getImageTag()!, /slim|alpine/);
      assert.equal(runtime.from.getImageName(), 'node');
      assert.match(runtime.from.getImageTag()!, /-slim$/);
    });

    test('pins every base image to a full Node 20 version (no latest, no floating major)', () => {
      for (const from of dockerfile.getFROMs()) {
        assert.match(from.getImageTag() ?? '', /^20\.\d+\.\d+-/, from.getImageName() ?? '');
      }
      assert.doesNotMatch(text, /:latest\b/);
    });

    test('installs with npm ci from the workspace lockfile, dev dependencies only in the build stage', () => {
      const runs = (stage: typeof build) => stage!.instructions.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
      assert.ok(runs(build).some((run) => /\bnpm ci\b/.test(run)));
      const runtimeInstall = runs(runtime).find((run) => /\bnpm ci\b/.test(run));
      assert.match(runtimeInstall ?? '', /--omit=dev/);
      assert.match(runtimeInstall ?? '', new RegExp(`--workspace ${image.workspace}\\b`));
      const copied = dockerfile.getCOPYs().flatMap((copy) => copy.getArguments().map((a) => a.getValue()));
      assert.ok(copied.includes('package-lock.json'));
    });

    test('runs as a non-root numeric user and declares no HEALTHCHECK (Kubernetes probes do that)', () => {
      const users = runtime!.instructions.filter((i) => i.getKeyword() === 'USER');
      assert.equal(users.length, 1);
      const uid = Number(users[0]!.getArgumentsContent()!.split(':')[0]);
      assert.ok(uid >= 10000, `uid ${uid}`);
      assert.equal(dockerfile.getInstructions().filter((i) => i.getKeyword() === 'HEALTHCHECK').length, 0);
    });

    test('copies only paths that exist in the repo and that .dockerignore lets into the context', () => {
      for (const copy of dockerfile.getCOPYs()) {
        if (copy.getFromFlag()) continue;
        const sources = copy.getArguments().slice(0, -1).map((a) => a.getValue());
        for (const source of sources) {
          assert.ok(existsSync(join(REPO_ROOT, source)), `${source} does not exist`);
          assert.ok(!ignoredByDockerignore(source), `${source} is excluded by .dockerignore`);
        }
      }
    });

    test('its entrypoint is the package bin, whose compiled code the build stage produces', () => {
      const entrypoint = dockerfile.getENTRYPOINTs()[0]!.getArgumentsContent();
      assert.deepEqual(JSON.parse(entrypoint!), ['node', image.entrypoint]);
      assert.ok(existsSync(join(REPO_ROOT, image.entrypoint)));
      const fromBuild = dockerfile.getCOPYs()
        .filter((copy) => copy.getFromFlag()?.getValue() === 'build')
        .map((copy) => copy.getArguments()[0]!.getValue());
      assert.ok(fromBuild.includes(`/app/${image.workspace}/dist`), 'the runtime stage takes dist from the build stage');
    });
  });
}
