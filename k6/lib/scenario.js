// What every scenario file shares: its settings, the SLO thresholds, tags and the summary.
import { readConfig } from './config.js';
import { summaryOutputs } from './summary.js';
import { SUMMARY_TREND_STATS, SYSTEM_TAGS, sloThresholds } from './thresholds.js';

export const config = readConfig(__ENV);

/** k6 options around the given scenarios (each one an executor config). */
export function scenarioOptions(scenarios) {
  return {
    scenarios,
    thresholds: sloThresholds(config),
    systemTags: SYSTEM_TAGS,
    summaryTrendStats: SUMMARY_TREND_STATS,
  };
}

/** A constant request rate: RATE requests per second for DURATION. */
export function constantRate(exec, { rate, duration }) {
  return {
    executor: 'constant-arrival-rate',
    exec,
    rate: config.rate ?? rate,
    timeUnit: '1s',
    duration: config.duration ?? duration,
    preAllocatedVUs: config.preAllocatedVUs,
    maxVUs: config.maxVUs,
  };
}

export function handleSummary(data) {
  return summaryOutputs(data, config.summaryFile);
}
