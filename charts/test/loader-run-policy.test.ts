// loader.runPolicy: which installs and upgrades replace the catalog. The loader's side (a load
// skipped when the fingerprint matches the served catalog's) is tested in loader-job/test.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Helm, findManifest, parseManifests } from './support/chart.js';

const helm = new Helm();

async function loaderJob(values: object): Promise<any> {
  return findManifest(parseManifests(await helm.template(values)), 'Job', '-loader');
}
const fingerprintOf = (job: any): string | undefined => {
  const args: string[] = job.spec.template.spec.containers.find((c: { name: string }) => c.name === 'load').args;
  const at = args.indexOf('--skip-if-source-unchanged');
  return at < 0 ? undefined : args[at + 1];
};

describe('loader.runPolicy', () => {
  test('onSourceChange (default): runs on install, upgrade and rollback with a fingerprint of the source values, the same for an image bump', async () => {
    const job = await loaderJob({});
    // A rollback restores the revision's source values: the served catalog follows at once, or
    // the next upgrade would find the fingerprints apart and reload without being asked to.
    assert.equal(job.metadata.annotations['helm.sh/hook'], 'post-install,post-upgrade,post-rollback');
    const fingerprint = fingerprintOf(job);
    assert.match(fingerprint ?? '', /^[0-9a-f]{16}$/);
    const bumped = await loaderJob({ gateway: { image: { tag: '9.9.9' } }, loader: { image: { tag: '9.9.9' } } });
    assert.equal(fingerprintOf(bumped), fingerprint, 'an image bump keeps the fingerprint: the load is skipped');
  });

  test('a change of the catalog source, or of runId, changes the fingerprint', async () => {
    const base = fingerprintOf(await loaderJob({}));
    const seen = new Set([base]);
    for (const values of [
      { loader: { generate: { seed: 2 } } },
      { loader: { generate: { products: 5000 } } },
      { loader: { source: 'pvc', pvc: { claimName: 'atelier-csv' } } },
      { loader: { runId: '2026-11-23' } },
    ]) {
      const fingerprint = fingerprintOf(await loaderJob(values));
      assert.ok(fingerprint && !seen.has(fingerprint), `${JSON.stringify(values)} gives a new fingerprint`);
      seen.add(fingerprint);
    }
  });

  test('always: every install, upgrade and rollback reloads (no fingerprint); onInstall: the hook runs after install only', async () => {
    const always = await loaderJob({ loader: { runPolicy: 'always' } });
    assert.equal(fingerprintOf(always), undefined);
    assert.equal(always.metadata.annotations['helm.sh/hook'], 'post-install,post-upgrade,post-rollback');
    const onInstall = await loaderJob({ loader: { runPolicy: 'onInstall' } });
    assert.equal(onInstall.metadata.annotations['helm.sh/hook'], 'post-install');
    await assert.rejects(helm.template({ loader: { runPolicy: 'sometimes' } }), /runPolicy/);
  });
});
