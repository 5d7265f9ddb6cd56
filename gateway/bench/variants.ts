/**
 * Gateway settings measured against the default gateway in the same run (`--variants`): what a
 * feature costs when it is on. Each variant runs as a gateway of its own beside the default one
 * (its own Redis database, so neither finds the other's cached answers) and joins the product
 * page and the hot REST mix, where its share of the default gateway's throughput has a target.
 */
export const VARIANTS = {
  limits: {
    target: 'gateway, limits on',
    // Every request identified, counted and checked, and the counts synced with Redis; none
    // refused (wrk is one client, far below its quotas, so no RateLimit fields are written).
    env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS: '1000000000', RATE_LIMIT_GRAPHQL_COST: '1000000000000' },
  },
} as const;

export type VariantName = keyof typeof VARIANTS;
export type VariantTarget = (typeof VARIANTS)[VariantName]['target'];
export const VARIANT_NAMES = Object.keys(VARIANTS) as VariantName[];

/** The least share of the default gateway's throughput a variant keeps, per workload. */
export const VARIANT_SHARE_TARGETS = { 'REST mix, hot': 0.9, 'GraphQL product page, cold': 0.95 } as const;
