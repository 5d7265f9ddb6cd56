// Realistic mix: product-page visits (product, styles, related, list) over Zipf-popular
// products, the list biased to its last 10 % of pages 10 % of the time.
// RATE (default 50/s), DURATION (default 5m), PRODUCT_COUNT, ZIPF_EXPONENT, PAGE_SIZE.
import { constantRate, scenarioOptions } from '../lib/scenario.js';
export { handleSummary } from '../lib/scenario.js';
export { restVisit } from '../lib/visits.js';

export const options = scenarioOptions({ mix: constantRate('restVisit', { rate: 50, duration: '5m' }) });
