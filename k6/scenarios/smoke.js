// Smoke: a few requests per second to every REST route and the GraphQL product page.
// RATE (default 5/s), DURATION (default 30s).
import { constantRate, scenarioOptions } from '../lib/scenario.js';
export { handleSummary } from '../lib/scenario.js';
export { everyRouteInTurn } from '../lib/visits.js';

export const options = scenarioOptions({ smoke: constantRate('everyRouteInTurn', { rate: 5, duration: '30s' }) });
