// `npm run dashboards`: regenerates dashboards/catalog-gateway.json from the builders here.
import { writeFile } from 'node:fs/promises';
import { renderDashboardJson } from './dashboard.js';

export const DASHBOARD_FILE = new URL('../catalog-gateway.json', import.meta.url);

await writeFile(DASHBOARD_FILE, renderDashboardJson());
console.log(`wrote ${DASHBOARD_FILE.pathname}`);
