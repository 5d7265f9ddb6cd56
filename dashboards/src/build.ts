// `npm run dashboards`: regenerates the dashboard JSON and the Prometheus rules file from the
// typed sources here. Tests fail when the committed files differ from what this writes.
import { writeFile } from 'node:fs/promises';
import { renderDashboardJson } from './dashboard.js';
import { renderRulesYaml } from './rules/rule-file.js';

export const GENERATED_FILES: Record<string, () => string> = {
  'catalog-gateway.json': renderDashboardJson,
  'prometheus-rules.yml': renderRulesYaml,
};

for (const [name, render] of Object.entries(GENERATED_FILES)) {
  const file = new URL(`../${name}`, import.meta.url);
  await writeFile(file, render());
  console.log(`wrote ${file.pathname}`);
}
