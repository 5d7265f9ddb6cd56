// Ramp: 1 → 10 → 100 → 1,000 requests per second (arrival rate: the rate is what is asked,
// however slow the answers; k6 adds VUs up to MAX_VUS and counts dropped iterations beyond),
// then holds the peak. PEAK_RATE (default 1000), STAGE_DURATION (default 1m per step).
import { config, scenarioOptions } from '../lib/scenario.js';
export { handleSummary } from '../lib/scenario.js';
export { restVisit } from '../lib/visits.js';

const peak = config.peakRate;
const stage = config.stageDuration;
// Enough VUs up front for the first steps at ~50 ms per request; more are added as needed.
const preAllocatedVUs = Math.min(config.maxVUs, Math.max(config.preAllocatedVUs, Math.ceil(peak / 20)));

export const options = scenarioOptions({
  ramp: {
    executor: 'ramping-arrival-rate',
    exec: 'restVisit',
    startRate: 1,
    timeUnit: '1s',
    preAllocatedVUs,
    maxVUs: config.maxVUs,
    stages: [
      { target: Math.max(1, peak / 100), duration: stage },
      { target: Math.max(1, peak / 10), duration: stage },
      { target: peak, duration: stage },
      { target: peak, duration: stage },
    ],
  },
});
