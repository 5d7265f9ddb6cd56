import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The id of a request, as the front door takes it for the request's record (Fastify's `genReqId` reads it there). */
export type RequestIdOf = (request: IncomingMessage) => string;

/**
 * Request ids: an incoming `x-request-id` is used as is; otherwise a random prefix per process
 * (unique across replicas and restarts) and a counter. As unique as a UUID for log search, and
 * far cheaper on the hot path than drawing random bytes for every request.
 */
export function createRequestIds(): RequestIdOf {
  const prefix = randomBytes(9).toString('base64url');
  let counter = 0;
  return (request) => (request.headers['x-request-id'] as string | undefined) || `${prefix}-${(++counter).toString(36)}`;
}
