// The two images' runtime stages replayed on this machine (no Docker engine here), run the way
// the chart runs them: the loader with the Job's generate and load arguments against a real
// Postgres, then the gateway with the chart's ConfigMap, checked by the chart's own `helm test`
// script. The host's Node stands in for the base image (images-build.test.ts builds the real ones).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { freePort } from '../../scripts/test/ports.js';
import { findManifest, Helm, parseManifests, type Manifest } from './support/chart.js';
import { replayRuntimeStage, type ReplayedImage } from './support/image-replay.js';
import { GroupProcess, runOk } from '../../scripts/test/process.js';
import { waitFor } from '../../scripts/test/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'catalog-images-'));
const helm = new Helm();
let gatewayImage: ReplayedImage;
let loaderImage: ReplayedImage;
let manifests: Manifest[];
let databaseUrl: string;

before(async () => {
  // Sequential: two `npm ci` at once would contend for the npm cache.
  gatewayImage = await replayRuntimeStage('gateway/Dockerfile');
  loaderImage = await replayRuntimeStage('loader-job/Dockerfile');
  manifests = parseManifests(await helm.template({ loader: { generate: { products: 40 } } }));
  databaseUrl = await createTestDatabase('chart_images');
});
after(() => {
  helm.cleanup();
  for (const dir of [scratch, gatewayImage?.dir, loaderImage?.dir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The chart's in-pod paths, moved into the scratch dir. */
const hostPath = (path: string) => path.replace(/^\/work\//, `${scratch}/`);

/** Creates the container's volume mounts (emptyDirs in the pod) under the scratch dir. */
function mountVolumes(container: { volumeMounts: { mountPath: string }[] }): void {
  for (const mount of container.volumeMounts) {
    if (mount.mountPath.startsWith('/work/')) mkdirSync(hostPath(mount.mountPath), { recursive: true });
  }
}

function runImage(image: ReplayedImage, args: string[], env: Record<string, string>) {
  const [command, ...entrypointArgs] = image.entrypoint;
  return runOk(command === 'node' ? process.execPath : command!, [...entrypointArgs, ...args], {
    cwd: image.dir,
    env: { ...image.env, ...env },
  });
}

test("the loader image runs the chart Job's generate and load commands against Postgres", async () => {
  const pod = (findManifest(manifests, 'Job', '-loader') as any).spec.template.spec;
  const generate = pod.initContainers.find((c: any) => c.name === 'generate');
  const load = pod.containers.find((c: any) => c.name === 'load');
  for (const container of [generate, load]) mountVolumes(container);
  await runImage(loaderImage, generate.args.map(hostPath), {});
  await runImage(loaderImage, load.args.map(hostPath), { DATABASE_URL: databaseUrl });
});

test("the gateway image, configured by the chart's ConfigMap, passes the chart's helm test script", async () => {
  const config = (findManifest(manifests, 'ConfigMap', '-gateway') as any).data as Record<string, string>;
  const port = await freePort();
  const [command, ...args] = gatewayImage.entrypoint;
  const gateway = new GroupProcess('gateway', command === 'node' ? process.execPath : command!, args, join(scratch, 'gateway.log'), {
    cwd: gatewayImage.dir,
    // The pod listens on 0.0.0.0; here it stays on loopback.
    env: {
      ...process.env,
      ...gatewayImage.env,
      ...config,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: '0',
      DATABASE_URL: databaseUrl,
    },
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitFor('the gateway /readyz', async () => ((await fetch(`${url}/readyz`)).ok ? true : undefined), 30_000);
    const smokeTest = (findManifest(manifests, 'Pod', '-smoke-test') as any).spec.containers[0];
    const [, ...nodeFlags] = smokeTest.command;
    const output = await runOk(process.execPath, [...nodeFlags, ...smokeTest.args], { env: { GATEWAY_URL: url } });
    assert.match(output, /gateway smoke test passed/);
  } catch (error) {
    (error as Error).message += `\n${gateway.logTail(30)}`;
    throw error;
  } finally {
    await gateway.stop();
  }
});
