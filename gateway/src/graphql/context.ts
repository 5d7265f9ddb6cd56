import type { FastifyBaseLogger } from 'fastify';
import type { RequestScope, Services } from '../services.js';

export interface GraphQLContext {
  services: Services;
  scope: RequestScope;
  authorization: string | undefined;
  /** The request's logger (its lines carry the request id). */
  log: FastifyBaseLogger;
  /** Set when the response carries errors: such responses are never cached. */
  failed: boolean;
}
