import { writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { requireTool } from './tools.js';

/**
 * The environment the tests run the pinned skaffold in: its global config in `dir` (no telemetry,
 * no update check, no survey prompt) and the pinned helm and kubectl first on PATH (skaffold
 * deploys and renders through them).
 */
export function skaffoldEnvironment(dir: string): NodeJS.ProcessEnv {
  const globalConfig = join(dir, 'skaffold-global.yaml');
  writeFileSync(globalConfig, 'global:\n  collect-metrics: false\n  update-check: false\n  survey:\n    disable-prompt: true\n');
  return {
    SKAFFOLD_CONFIG: globalConfig,
    SKAFFOLD_UPDATE_CHECK: 'false',
    PATH: [dirname(requireTool('helm')), dirname(requireTool('kubectl')), process.env.PATH].join(delimiter),
  };
}
