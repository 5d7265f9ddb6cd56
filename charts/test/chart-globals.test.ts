// Bitnami's conventions, rendered: global.imageRegistry, global.imagePullSecrets and
// global.storageClass reach every image, pod and claim; an image's digest pins it; the
// extraEnvVars spellings reach the containers; the gateway's NetworkPolicy.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findManifest, Helm, parseManifests, VALUE_SETS, type Manifest } from './support/chart.js';

const helm = new Helm();
const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const GLOBALS = {
  global: { imageRegistry: 'mirror.example:5000', imagePullSecrets: ['regcred', { name: 'team-pull' }], storageClass: 'fast-ssd' },
  imagePullSecrets: [{ name: 'team-pull' }, { name: 'chart-pull' }],
  gateway: {
    image: { digest: DIGEST },
    extraEnv: [{ name: 'FROM_EXTRA_ENV', value: '1' }],
    extraEnvVars: [{ name: 'FROM_EXTRA_ENV_VARS', value: '2' }],
    extraEnvVarsCM: 'gateway-env',
    extraEnvVarsSecret: 'gateway-secret-env',
  },
  loader: { extraEnvVars: [{ name: 'LOADER_EXTRA', value: '3' }], extraEnvVarsCM: 'loader-env', extraEnvVarsSecret: 'loader-secret-env' },
  networkPolicy: { enabled: true, gateway: { enabled: true, extraEgress: [{ ports: [{ port: 443, protocol: 'TCP' }] }] } },
};

/** Every pod spec a manifest holds (Deployments, StatefulSets, Jobs, bare Pods). */
const podSpecs = (manifests: Manifest[]) =>
  manifests.flatMap((m: any) => {
    const spec = m.kind === 'Pod' ? m.spec : m.spec?.template?.spec;
    return spec ? [{ name: `${m.kind}/${m.metadata.name}`, spec }] : [];
  });

let rendered: Manifest[];
before(async () => {
  // Every component the chart can run, so that every image and pod is in the render.
  const everything = VALUE_SETS['read replicas, Redis Sentinel, Jaeger'] as Record<string, unknown>;
  rendered = parseManifests(await helm.template({ ...everything, ...GLOBALS, tracing: { jaeger: { enabled: true } } }));
});
after(() => helm.cleanup());

describe('chart globals and images (Bitnami conventions)', () => {
  test('global.imageRegistry prefixes every image of every pod, containers and init containers alike', () => {
    const images = podSpecs(rendered).flatMap(({ name, spec }) =>
      [...(spec.initContainers ?? []), ...spec.containers].map((container: any) => ({ name, image: container.image as string })),
    );
    assert.ok(images.length >= 8, `only ${images.length} images rendered`);
    assert.deepEqual(
      images.filter(({ image }) => !image.startsWith('mirror.example:5000/')),
      [],
    );
  });

  test("an image's digest pins it (the tag is dropped)", () => {
    const gateway = findManifest(rendered, 'Deployment', '-gateway') as any;
    assert.equal(gateway.spec.template.spec.containers[0].image, `mirror.example:5000/catalog-gateway@${DIGEST}`);
  });

  test('global.imagePullSecrets and imagePullSecrets reach every pod, each name once, names or {name}', () => {
    const specs = podSpecs(rendered);
    assert.ok(specs.length >= 6);
    for (const { name, spec } of specs) {
      assert.deepEqual(
        (spec.imagePullSecrets ?? []).map((secret: { name: string }) => secret.name),
        ['regcred', 'team-pull', 'chart-pull'],
        name,
      );
    }
  });

  test("global.storageClass is every claim's storage class", () => {
    const claims = rendered.flatMap((m: any) => (m.spec?.volumeClaimTemplates ?? []).map((claim: any) => claim.spec.storageClassName));
    assert.ok(claims.length > 0, 'no volume claim rendered');
    assert.deepEqual([...new Set(claims)], ['fast-ssd']);
  });

  test('extraEnvVars, extraEnvVarsCM and extraEnvVarsSecret reach the gateway and loader containers beside extraEnv', () => {
    const gateway = (findManifest(rendered, 'Deployment', '-gateway') as any).spec.template.spec.containers[0];
    const gatewayEnv = gateway.env.map((e: { name: string }) => e.name);
    assert.ok(gatewayEnv.includes('FROM_EXTRA_ENV') && gatewayEnv.includes('FROM_EXTRA_ENV_VARS'), gatewayEnv.join(', '));
    assert.deepEqual(gateway.envFrom.slice(-2), [{ configMapRef: { name: 'gateway-env' } }, { secretRef: { name: 'gateway-secret-env' } }]);
    const loader = (findManifest(rendered, 'Job', '-loader') as any).spec.template.spec.containers.find((c: any) =>
      c.env?.some((e: { name: string }) => e.name === 'LOADER_EXTRA'),
    );
    assert.ok(loader, 'no loader container has LOADER_EXTRA');
    assert.deepEqual(loader.envFrom.slice(-2), [{ configMapRef: { name: 'loader-env' } }, { secretRef: { name: 'loader-secret-env' } }]);
  });

  test('the gateway NetworkPolicy: in from the namespace to its ports; out to DNS, Postgres, Redis, OTLP and extraEgress', () => {
    const policy = findManifest(rendered, 'NetworkPolicy', '-gateway') as any;
    assert.deepEqual(policy.spec.policyTypes, ['Ingress', 'Egress']);
    assert.deepEqual(policy.spec.podSelector.matchLabels['app.kubernetes.io/component'], 'gateway');
    assert.deepEqual(policy.spec.ingress[0].from, [{ podSelector: {} }]);
    assert.deepEqual(
      policy.spec.ingress[0].ports.map((p: { port: string }) => p.port),
      ['http', 'metrics'],
    );
    const egressPorts = policy.spec.egress.flatMap((rule: any) => rule.ports.map((p: any) => `${p.port}/${p.protocol}`));
    for (const port of ['53/UDP', '53/TCP', '5432/TCP', '6379/TCP', '26379/TCP', '4317/TCP', '4318/TCP', '443/TCP']) {
      assert.ok(egressPorts.includes(port), `${port} not allowed out: ${egressPorts.join(', ')}`);
    }
  });

  test('off by default: no gateway NetworkPolicy, images as written', async () => {
    const defaults = parseManifests(await helm.template({}));
    assert.ok(!defaults.some((m) => m.kind === 'NetworkPolicy' && m.metadata.name.endsWith('-gateway')));
    const gateway = (findManifest(defaults, 'Deployment', '-gateway') as any).spec.template.spec.containers[0];
    assert.match(gateway.image, /^catalog-gateway:/);
  });
});
