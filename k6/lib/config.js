// Scenario settings from environment variables (k6's __ENV), validated once in the init stage:
// a bad value stops the run before any request with a message naming the variable.

/** @param {Record<string, string | undefined>} env */
export function readConfig(env) {
  const number = (name, fallback, { min = 0, integer = false } = {}) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
      throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got "${raw}"`);
    }
    return value;
  };
  const duration = (name, fallback) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^(\d+(ms|s|m|h))+$/.test(raw)) throw new Error(`${name} must be a k6 duration like 30s, 5m or 1h30m, got "${raw}"`);
    return raw;
  };
  const baseUrl = (env.BASE_URL ?? 'http://127.0.0.1:4000').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new Error(`BASE_URL must be an http(s) URL, got "${env.BASE_URL}"`);

  return {
    baseUrl,
    /** Requests per second asked of arrival-rate scenarios. */
    rate: number('RATE', undefined, { min: 1 }),
    duration: duration('DURATION', undefined),
    /** Peak of the ramp scenario; the ramp climbs 1 → PEAK/100 → PEAK/10 → PEAK. */
    peakRate: number('PEAK_RATE', 1000, { min: 1 }),
    stageDuration: duration('STAGE_DURATION', '1m'),
    /** Product ids are 1..PRODUCT_COUNT (the loader numbers products from 1). */
    productCount: number('PRODUCT_COUNT', 1000, { min: 1, integer: true }),
    pageSize: number('PAGE_SIZE', 5, { min: 1, integer: true }),
    /** Zipf exponent of product popularity: higher = a few products get most visits. */
    zipfExponent: number('ZIPF_EXPONENT', 1.1, { min: 0 }),
    preAllocatedVUs: number('PRE_ALLOCATED_VUS', 20, { min: 1, integer: true }),
    maxVUs: number('MAX_VUS', 1000, { min: 1, integer: true }),
    /** Thresholds that fail the run: the SLOs (p95 under 50 ms, under 1 % errors). */
    p95Ms: number('P95_MS', 50, { min: 0 }),
    maxErrorRate: number('MAX_ERROR_RATE', 0.01, { min: 0 }),
    summaryFile: env.SUMMARY_FILE || undefined,
  };
}
