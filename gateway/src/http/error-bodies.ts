/**
 * Every error body the gateway writes, built here alone (as Fastify's lib/errors names its own):
 * REST errors as `{"error": …}`, GraphQL errors as `{"errors": [{message, extensions: {code}}]}`,
 * and a client over its quota as an RFC 9457 problem details object.
 */

/** A REST error (and any error that reaches no route): the problem, named. */
export const restErrorBody = (message: string): string => JSON.stringify({ error: message });

/** A GraphQL request refused before it runs, as GraphQL over HTTP clients read errors. */
export const graphqlErrorBody = (message: string, code: string): string => JSON.stringify({ errors: [{ message, extensions: { code } }] });

/** RFC 9457's media type: a REST refusal is a problem details object. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** A problem details object (RFC 9457) with the RateLimit draft's `violated-policies`. */
export const problemBody = (type: string, title: string, status: number, detail: string, violatedPolicies: readonly string[]): string =>
  JSON.stringify({ type, title, status, detail, 'violated-policies': violatedPolicies });
