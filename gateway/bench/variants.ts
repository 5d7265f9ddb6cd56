/**
 * Gateway settings measured against the defaults in the same run (`--variants`): what a feature
 * costs when it is on. Each variant runs as a gateway process of its own, and so does a control
 * with the default settings, started and warmed the same way: the default gateway of the run also
 * feeds the bare server's recordings, which leaves it in another state than a gateway that only
 * served the benchmark. Each has its own Redis database (none finds another's cached answers) and
 * joins the product page (its own cold ids) and the hot REST mix, where a variant's share of the
 * control's throughput has a target.
 */
export const VARIANTS = {
  control: { target: 'gateway (control)', env: {} },
  limits: {
    target: 'gateway, limits on',
    // Every request identified, counted and checked, and the counts synced with Redis; none
    // refused (wrk is one client, far below its quotas, so no RateLimit fields are written).
    env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS: '1000000000', RATE_LIMIT_GRAPHQL_COST: '1000000000000' },
  },
} as const;

export type VariantName = Exclude<keyof typeof VARIANTS, 'control'>;
export type VariantTarget = (typeof VARIANTS)[keyof typeof VARIANTS]['target'];
export const VARIANT_NAMES = Object.keys(VARIANTS).filter((name) => name !== 'control') as VariantName[];
export const CONTROL_TARGET = VARIANTS.control.target;

/** The least share of the control's throughput a variant keeps, per workload. */
export const VARIANT_SHARE_TARGETS = { 'REST mix, hot': 0.9, 'GraphQL product page, cold': 0.95 } as const;
