/**
 * A GraphQL request's parameters, already parsed from a POST body or a GET query string.
 * `extensions` may still be JSON text (as a GET carries it). `documentId` (GraphQL over HTTP's
 * persisted-documents proposal) and `doc_id` (Relay's usual name) name a trusted document.
 */
export interface GraphQLParams {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
  documentId?: unknown;
  doc_id?: unknown;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Absent, null or an object: what Apollo accepts for `variables` and `extensions` in a POST body. */
const isRecordOrNothing = (value: unknown): boolean => value === undefined || value === null || isRecord(value);

/**
 * Whether a request's fields have the types GraphQL over HTTP gives them: text `query`, text (or
 * no) `operationName`, objects (or nothing) for `variables` and `extensions`. Apollo answers any
 * other request with a 400 of its own, which must never be taken from, or put in, the response
 * cache: its cache key names the operation and variables, not how wrongly they were sent.
 */
export function wellFormedRequest(params: GraphQLParams): boolean {
  if (!isRecord(params) || typeof params.query !== 'string') return false;
  if (params.operationName !== undefined && params.operationName !== null && typeof params.operationName !== 'string') return false;
  return isRecordOrNothing(params.variables) && isRecordOrNothing(params.extensions);
}
