// skaffold.yaml, checked offline with the pinned skaffold: it parses under its schema version,
// the kind profile stops pushing, the local-podman profile builds with podman and pushes, and
// rendering hands the built image tags to the chart. real-cluster.test.ts runs it for real.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { findManifest, OFFLINE_CREDENTIALS, parseManifests, REPO_ROOT } from './support/chart.js';
import { runOk } from '../../scripts/test/process.js';
import { skaffoldEnvironment } from './support/skaffold.js';
import { requireTool } from './support/tools.js';

const scratch = mkdtempSync(join(tmpdir(), 'catalog-skaffold-'));
let skaffoldEnv: NodeJS.ProcessEnv;
let skaffold: string;

before(() => {
  skaffold = requireTool('skaffold');
  skaffoldEnv = { ...skaffoldEnvironment(scratch), HOME: scratch };
});
after(() => rmSync(scratch, { recursive: true, force: true }));

const runSkaffold = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runOk(skaffold, args, { cwd: REPO_ROOT, env: { ...skaffoldEnv, ...env } });

describe('skaffold.yaml', () => {
  test('parses under its schema and builds both images from the repo root with their Dockerfiles', async () => {
    const config = parseYaml(await runSkaffold(['diagnose', '--yaml-only', '--filename', 'skaffold.yaml']));
    assert.match(config.apiVersion, /^skaffold\/v4beta\d+$/);
    assert.deepEqual(
      config.build.artifacts.map((a: any) => [a.image, a.context, a.docker.dockerfile]),
      [
        ['catalog-gateway', resolve(REPO_ROOT), 'gateway/Dockerfile'],
        ['catalog-loader', resolve(REPO_ROOT), 'loader-job/Dockerfile'],
      ],
    );
    assert.deepEqual(
      config.portForward.map((p: any) => [p.resourceName, p.port, p.localPort, p.address]),
      [
        ['catalog-gateway-gateway', 4000, 4000, '127.0.0.1'],
        ['catalog-gateway-grafana', 3000, 3000, '127.0.0.1'],
        ['catalog-gateway-prometheus', 9090, 9090, '127.0.0.1'],
      ],
    );
  });

  test('the kind profile builds locally without pushing', async () => {
    const config = parseYaml(await runSkaffold(['diagnose', '--yaml-only', '--filename', 'skaffold.yaml', '--profile', 'kind']));
    assert.equal(config.build.local.push, false);
  });

  test('the local-podman profile builds each Dockerfile with podman (scripts/images/skaffold-build.sh) and pushes', async () => {
    const config = parseYaml(await runSkaffold(['diagnose', '--yaml-only', '--filename', 'skaffold.yaml', '--profile', 'local-podman']));
    assert.equal(config.build.local.push, true);
    assert.deepEqual(
      config.build.artifacts.map((a: any) => [a.image, a.docker, a.custom.buildCommand]),
      [
        ['catalog-gateway', undefined, 'bash scripts/images/skaffold-build.sh gateway/Dockerfile'],
        ['catalog-loader', undefined, 'bash scripts/images/skaffold-build.sh loader-job/Dockerfile'],
      ],
    );
    // Every path each Dockerfile copies is a listed input (a change there rebuilds the image).
    for (const artifact of config.build.artifacts) {
      const dockerfile = readFileSync(join(REPO_ROOT, artifact.custom.buildCommand.split(' ').pop()), 'utf8');
      const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) => match[1]!.split(' '));
      for (const path of copied) {
        const input = path.replace(/\/$/, '');
        assert.ok(
          artifact.custom.dependencies.paths.some((listed: string) => input === listed || input.startsWith(`${listed}/`)),
          `${artifact.image}: ${input} is copied but not a listed input`,
        );
      }
    }
  });

  test('render hands the built tags to the chart, and the port-forwards name Services the chart creates', async () => {
    // No cluster behind `skaffold render`: the passwords come in CATALOG_VALUES_FILE.
    const credentials = join(scratch, 'credentials.json');
    writeFileSync(credentials, JSON.stringify(OFFLINE_CREDENTIALS));
    const builds = join(scratch, 'builds.json');
    writeFileSync(
      builds,
      JSON.stringify({
        builds: [
          { imageName: 'catalog-gateway', tag: 'catalog-gateway:3f2a9c1' },
          { imageName: 'catalog-loader', tag: 'catalog-loader:3f2a9c1' },
        ],
      }),
    );
    const rendered = await runSkaffold(
      ['render', '--offline', '--filename', 'skaffold.yaml', '--build-artifacts', builds, '--digest-source', 'tag'],
      { CATALOG_VALUES_FILE: credentials },
    );
    const manifests = parseManifests(rendered);
    const gateway = findManifest(manifests, 'Deployment', 'catalog-gateway-gateway') as any;
    assert.equal(gateway.spec.template.spec.containers[0].image, 'catalog-gateway:3f2a9c1');
    const loader = findManifest(manifests, 'Job', 'catalog-gateway-loader') as any;
    assert.equal(loader.spec.template.spec.containers[0].image, 'catalog-loader:3f2a9c1');

    const config = parseYaml(await runSkaffold(['diagnose', '--yaml-only', '--filename', 'skaffold.yaml']));
    for (const forward of config.portForward) {
      const service = findManifest(manifests, 'Service', forward.resourceName) as any;
      assert.ok(
        service.spec.ports.some((p: any) => p.port === forward.port),
        `${forward.resourceName}:${forward.port}`,
      );
    }
  });
});
