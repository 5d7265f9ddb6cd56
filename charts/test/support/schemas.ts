import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runOk } from '../../../scripts/test/process.js';
import { requireTool } from './tools.js';

/** Kubernetes version whose API schemas the rendered chart is validated against (offline). */
export const SCHEMA_KUBERNETES_VERSION = '1.35.0';

/** Where the kubernetes-validate package keeps its bundled strict schemas. */
async function bundledSchemaDir(): Promise<string> {
  const wrapper = requireTool('kubernetes-validate');
  // The wrapper is a venv console script: its shebang names the venv's python.
  const python = readFileSync(wrapper, 'utf8')
    .split('\n')[0]!
    .replace(/^#!\s*/, '')
    .trim();
  const packageDir = (
    await runOk(python, ['-c', 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))'])
  ).trim();
  return join(packageDir, 'kubernetes-json-schema', `v${SCHEMA_KUBERNETES_VERSION}-local-strict`);
}

/**
 * Copies kubernetes-validate's strict schemas into outDir in the shape kubeconform reads, with
 * every `$id` removed and every `$ref` pointing at a local file: left as they are, kubeconform
 * would try to fetch them from the internet. Returns kubeconform's -schema-location template.
 */
export async function prepareOfflineSchemas(outDir: string): Promise<string> {
  const sourceDir = await bundledSchemaDir();
  mkdirSync(outDir, { recursive: true });
  const definitions = resolve(outDir, '_definitions.json');
  for (const file of readdirSync(sourceDir).filter((name) => name.endsWith('.json'))) {
    const { $id: _remoteId, ...schema } = JSON.parse(readFileSync(join(sourceDir, file), 'utf8'));
    const localised = JSON.stringify(schema).replaceAll('"/api/_definitions.json#', `"file://${definitions}#`);
    writeFileSync(join(outDir, file), localised);
  }
  return `${outDir}/{{.ResourceKind}}{{.KindSuffix}}.json`;
}

/** Validates manifests strictly and offline; throws with kubeconform's findings. */
export async function kubeconform(manifests: string, schemaLocation: string): Promise<string> {
  return runOk(
    requireTool('kubeconform'),
    ['-strict', '-summary', '-output', 'text', '-kubernetes-version', SCHEMA_KUBERNETES_VERSION, '-schema-location', schemaLocation, '-'],
    { input: manifests },
  );
}
