import { graphqlErrorBody, PROBLEM_CONTENT_TYPE, problemBody } from '../http/error-bodies.js';
import { JSON_CONTENT_TYPE } from '../http/media-types.js';
import type { ClientPolicy } from './limit-policies.js';
import { COST_POLICY, REQUESTS_POLICY } from './ratelimit-fields.js';

/** A 429 answer, as the response writer writes it. */
export interface Refusal {
  status: 429;
  headers: [name: string, value: string][];
  body: string;
}

/** The GraphQL error code of a refusal (`extensions.code`), as other gateways name it. */
export const RATE_LIMITED_CODE = 'RATE_LIMITED';

/** The RateLimit header fields draft's problem type for a client over its quota. */
export const QUOTA_EXCEEDED_TYPE = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

const GRAPHQL_PATH = /^\/graphql(?:[/?]|$)/;

/** What a client still had when it was refused, and when the window ends. */
export interface RefusalState {
  policy: ClientPolicy;
  windowSeconds: number;
  /** The RateLimit field: every policy's remaining units and reset. */
  rateLimitField: string;
  secondsLeft: number;
}

function refusal(
  message: string,
  violatedPolicy: string,
  graphql: boolean,
  { policy, rateLimitField, secondsLeft }: RefusalState,
): Refusal {
  const body = graphql
    ? graphqlErrorBody(message, RATE_LIMITED_CODE)
    : problemBody(QUOTA_EXCEEDED_TYPE, 'Request quota exceeded', 429, message, [violatedPolicy]);
  return {
    status: 429,
    headers: [
      ['content-type', graphql ? JSON_CONTENT_TYPE : PROBLEM_CONTENT_TYPE],
      ['cache-control', 'no-store'],
      // The draft: Retry-After no earlier than the RateLimit reset (both: the window's end).
      ['retry-after', String(secondsLeft)],
      ['ratelimit', rateLimitField],
      ['ratelimit-policy', policy.field],
    ],
    body,
  };
}

/** Over the request quota: a problem details object on REST, or a GraphQL error for /graphql. */
export function requestsRefusal(url: string, state: RefusalState): Refusal {
  const message =
    `rate limit exceeded: ${state.policy.requests} requests per ${state.windowSeconds} s for this client ` +
    `(policy "${REQUESTS_POLICY}"); retry in ${state.secondsLeft} s`;
  return refusal(message, REQUESTS_POLICY, GRAPHQL_PATH.test(url), state);
}

/** Over the GraphQL cost budget: a GraphQL error naming the operation's cost and what was left. */
export function costRefusal(cost: number, remaining: number, state: RefusalState): Refusal {
  const message =
    `GraphQL cost limit exceeded: this operation costs ${cost}, and ${remaining} of this client's ${state.policy.graphqlCost} ` +
    `per ${state.windowSeconds} s remain (policy "${COST_POLICY}"); retry in ${state.secondsLeft} s`;
  return refusal(message, COST_POLICY, true, state);
}
