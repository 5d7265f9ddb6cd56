// Soak: the realistic REST mix plus GraphQL product pages (a fifth of the REST rate) held for a
// long time, to surface leaks and slow drifts. RATE (default 30/s), DURATION (default 1h).
import { constantRate, scenarioOptions } from '../lib/scenario.js';
export { handleSummary } from '../lib/scenario.js';
export { graphqlProductPage, restVisit } from '../lib/visits.js';

const rest = constantRate('restVisit', { rate: 30, duration: '1h' });
export const options = scenarioOptions({
  rest,
  graphql: { ...rest, exec: 'graphqlProductPage', rate: Math.max(1, Math.round(rest.rate / 5)) },
});
