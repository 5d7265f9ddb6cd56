/**
 * The RateLimit and RateLimit-Policy response fields of draft-ietf-httpapi-ratelimit-headers
 * (revision 11; structured-field lists of items with parameters):
 *
 *   RateLimit-Policy: "requests";q=1200;w=60, "graphql-cost";q=200000;w=60;catalog-qu="graphql-cost"
 *   RateLimit: "requests";r=1187;t=42, "graphql-cost";r=199130;t=42
 *
 * q is the quota per window of w seconds, r what remains of it, t the seconds until the window
 * ends. The draft's quota units (`qu`) are requests, content-bytes and concurrent-requests; GraphQL
 * cost is none of them, so its policy says so in a vendor parameter, as the draft asks of
 * implementation-specific parameters.
 */
/** The response field telling one client what remains of its quotas: an answer carrying it is that client's own. */
export const RATELIMIT_FIELD = 'ratelimit';

export const REQUESTS_POLICY = 'requests';
export const COST_POLICY = 'graphql-cost';
export type PolicyName = typeof REQUESTS_POLICY | typeof COST_POLICY;

export function policyField(requests: number, graphqlCost: number, windowSeconds: number): string {
  return `"${REQUESTS_POLICY}";q=${requests};w=${windowSeconds}, "${COST_POLICY}";q=${graphqlCost};w=${windowSeconds};catalog-qu="${COST_POLICY}"`;
}

export const limitItem = (policy: PolicyName, remaining: number, resetSeconds: number): string =>
  `"${policy}";r=${remaining};t=${resetSeconds}`;
