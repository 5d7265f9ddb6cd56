// GraphQL product pages (product, features, styles with photos and skus, related ids) for
// Zipf-popular products. RATE (default 20/s), DURATION (default 2m), PRODUCT_COUNT.
import { constantRate, scenarioOptions } from '../lib/scenario.js';
export { handleSummary } from '../lib/scenario.js';
export { graphqlProductPage } from '../lib/visits.js';

export const options = scenarioOptions({ graphql: constantRate('graphqlProductPage', { rate: 20, duration: '2m' }) });
