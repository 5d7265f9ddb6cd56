// gateway/Dockerfile and loader-job/Dockerfile, checked statically (images-build.test.ts builds
// them for real with podman and inspects the images).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, test } from 'node:test';
import { DockerfileParser, type Dockerfile } from 'dockerfile-ast';
import { REPO_ROOT } from './support/chart.js';

const IMAGES = [
  { dockerfile: 'gateway/Dockerfile', workspace: 'gateway', entrypoint: 'gateway/bin/catalog-gateway.js' },
  { dockerfile: 'loader-job/Dockerfile', workspace: 'loader-job', entrypoint: 'loader-job/bin/catalog-loader.js' },
];

/** The Node version of the local base image stand-in (scripts/images/build-node-base.sh). */
const standInNodeVersion = /^node_version=(\S+)$/m.exec(readFileSync(join(REPO_ROOT, 'scripts/images/build-node-base.sh'), 'utf8'))![1];

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

    test('is multi-stage: a build stage and a runtime stage, both on the NODE_IMAGE build argument', () => {
      assert.equal(extra.length, 0);
      assert.ok(build && runtime);
      assert.equal(build.from.getImage(), '${NODE_IMAGE}');
      assert.equal(runtime.from.getImage(), '${NODE_IMAGE}');
    });

    test('NODE_IMAGE defaults to the official Node 24 image pinned to a full version, the one CI stands in for', () => {
      const [arg, ...others] = dockerfile.getARGs().filter((a) => a.getProperty()?.getName() === 'NODE_IMAGE');
      assert.equal(others.length, 0);
      assert.ok(arg!.getRange().start.line < build!.from.getRange().start.line, 'declared before the first FROM');
      assert.match(arg!.getProperty()!.getValue() ?? '', /^node:24\.\d+\.\d+-bookworm-slim$/);
      assert.equal(arg!.getProperty()!.getValue(), `node:${standInNodeVersion}-bookworm-slim`);
      assert.doesNotMatch(text, /:latest\b/);
    });

    test('installs with npm ci from the workspace lockfile, dev dependencies only in the build stage', () => {
      const runs = (stage: typeof build) =>
        stage!.instructions.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
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
      assert.equal(users[0]!.getArgumentsContent(), '10001:10001');
      assert.equal(dockerfile.getInstructions().filter((i) => i.getKeyword() === 'HEALTHCHECK').length, 0);
    });

    test('copies only paths that exist in the repo and that .dockerignore lets into the context', () => {
      for (const copy of dockerfile.getCOPYs()) {
        if (copy.getFromFlag()) continue;
        const sources = copy
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue());
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
      const fromBuild = dockerfile
        .getCOPYs()
        .filter((copy) => copy.getFromFlag()?.getValue() === 'build')
        .map((copy) => copy.getArguments()[0]!.getValue());
      assert.ok(fromBuild.includes(`/app/${image.workspace}/dist`), 'the runtime stage takes dist from the build stage');
    });
  });
}

/** The workspace folder of each workspace package, by package name. */
const WORKSPACES = new Map(
  (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).workspaces as string[]).map((folder) => [
    JSON.parse(readFileSync(join(REPO_ROOT, folder, 'package.json'), 'utf8')).name as string,
    folder,
  ]),
);

/** The workspaces a workspace needs at run time: its workspace `dependencies`, transitively. */
function runtimeWorkspaces(folder: string): string[] {
  const dependencies = Object.keys(JSON.parse(readFileSync(join(REPO_ROOT, folder, 'package.json'), 'utf8')).dependencies ?? {});
  const direct = dependencies.flatMap((name) => (WORKSPACES.has(name) ? [WORKSPACES.get(name)!] : []));
  return [...new Set(direct.flatMap((dependency) => [dependency, ...runtimeWorkspaces(dependency)]))];
}

/** What a Dockerfile's runtime stage takes from a workspace folder, from the context or the build stage. */
function runtimeCopiesFrom(dockerfile: string, folder: string): string[] {
  const parsed = DockerfileParser.parse(readFileSync(join(REPO_ROOT, dockerfile), 'utf8'));
  const runtimeStart = parsed.getFROMs().at(-1)!.getRange().start.line;
  return parsed
    .getCOPYs()
    .filter((copy) => copy.getRange().start.line > runtimeStart)
    .flatMap((copy) =>
      copy
        .getArguments()
        .slice(0, -1)
        .map((a) => posix.relative(copy.getFromFlag() ? '/app' : '.', a.getValue())),
    )
    .filter((source) => source === folder || source.startsWith(`${folder}/`))
    .sort();
}

test('the gateway needs no loader at run time: not a dependency, not imported by its sources', () => {
  assert.deepEqual(runtimeWorkspaces('gateway'), ['contract']);
  const gatewaySources = readdirSync(join(REPO_ROOT, 'gateway/src'), { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.ts'),
  );
  for (const file of gatewaySources) {
    assert.doesNotMatch(readFileSync(join(REPO_ROOT, 'gateway/src', file), 'utf8'), /@catalog\/loader-job/, `gateway/src/${file}`);
  }
});

/** The packages a workspace's shipped code (src, bin) imports, by package name. */
function importedPackages(folder: string): Set<string> {
  const shipped = ['src', 'bin']
    .filter((dir) => existsSync(join(REPO_ROOT, folder, dir)))
    .flatMap((dir) =>
      readdirSync(join(REPO_ROOT, folder, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|js)$/.test(file))
        .map((file) => readFileSync(join(REPO_ROOT, folder, dir, file), 'utf8')),
    );
  const specifiers = shipped.flatMap((text) => [...text.matchAll(/(?:from|import)\s*\(?\s*'([^'.][^']*)'/g)].map((match) => match[1]!));
  return new Set(
    specifiers.map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    ),
  );
}

test('each image installs only what its code imports: every runtime dependency is used', () => {
  for (const image of IMAGES) {
    const imported = importedPackages(image.workspace);
    const dependencies = Object.keys(JSON.parse(readFileSync(join(REPO_ROOT, image.workspace, 'package.json'), 'utf8')).dependencies ?? {});
    assert.deepEqual(
      dependencies.filter((name) => !imported.has(name)),
      [],
      `${image.workspace}/package.json: runtime dependencies its src/ and bin/ never import (npm ci --omit=dev ships them)`,
    );
  }
});

test('each image carries the contract package whole (manifest, compiled code, DDL) and of the other workspaces only what it runs', () => {
  for (const image of IMAGES) {
    for (const folder of WORKSPACES.values()) {
      const expected =
        folder === image.workspace
          ? [`${folder}/bin`, `${folder}/dist`, `${folder}/package.json`]
          : runtimeWorkspaces(image.workspace).includes(folder)
            ? [`${folder}/dist`, `${folder}/package.json`, `${folder}/sql`]
            : // npm ci checks every workspace manifest against the lockfile: the manifest alone.
              [`${folder}/package.json`];
      assert.deepEqual(runtimeCopiesFrom(image.dockerfile, folder), expected, `${image.dockerfile}: ${folder}`);
    }
  }
});
