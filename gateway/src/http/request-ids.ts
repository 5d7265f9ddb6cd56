import { randomBytes } from 'node:crypto';

/**
 * Request ids for requests that arrive without `x-request-id`: a random prefix per process
 * (unique across replicas and restarts) and a counter. As unique as a UUID for log search,
 * and far cheaper on the hot path than drawing random bytes for every request.
 */
export function createRequestIdGenerator(): () => string {
  const prefix = randomBytes(9).toString('base64url');
  let counter = 0;
  return () => `${prefix}-${(++counter).toString(36)}`;
}
