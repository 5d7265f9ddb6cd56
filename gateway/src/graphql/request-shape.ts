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

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Buffer.isBuffer(value);

/**
 * What is wrong with a request no operation can be read from, in the words of Apollo's HTTP layer
 * (clients know them), or undefined. An array is a batch, which the gateway does not take.
 */
export function malformedRequest(params: unknown): string | undefined {
  if (Array.isArray(params)) return 'Operation batching disabled.';
  if (!isObject(params) || Object.keys(params).length === 0) return 'POST body missing, invalid Content-Type, or JSON object has no keys.';
  const { query, variables, extensions, operationName } = params as GraphQLParams;
  if (query && typeof query !== 'string') return 'GraphQL queries must be strings.';
  for (const [field, value] of [
    ['variables', variables],
    ['extensions', extensions],
  ] as const) {
    if (typeof value === 'string')
      return `\`${field}\` in a POST body should be provided as an object, not a recursively JSON-encoded string.`;
    if (value !== undefined && value !== null && (!isObject(value) || Array.isArray(value)))
      return `\`${field}\` in a POST body must be an object if provided.`;
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
    return '`operationName` in a POST body must be a string if provided.';
  }
  return undefined;
}
