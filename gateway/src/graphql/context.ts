import type { FastifyBaseLogger } from 'fastify';
import type { RequestRecord } from '../pipeline/request-record.js';
import type { RequestScope, Services } from '../services.js';

/** What resolvers and Apollo plugins get for one operation; made once, never changed. */
export interface GraphQLContext {
  readonly services: Services;
  readonly scope: RequestScope;
  readonly authorization: string | undefined;
  /** The request's logger (its lines carry the request id). */
  readonly log: FastifyBaseLogger;
  /** The request's record: its operation's cost, computed once by the route, is what the cost check reads. */
  readonly record: RequestRecord;
}
