import type { FastifyBaseLogger } from 'fastify';
import type { ExecutionResult } from 'graphql';
import type { RequestScope, Services } from '../services.js';

export interface GraphQLContext {
  services: Services;
  scope: RequestScope;
  authorization: string | undefined;
  /** The request's logger (its lines carry the request id). */
  log: FastifyBaseLogger;
  /**
   * `failed` is set when the response carries errors: such responses are never cached. An object
   * the route keeps, not a flag on the context: Apollo hands its plugins a shallow copy of the
   * context, so a flag set there never reached the route.
   */
  outcome: { failed: boolean };
  /**
   * The operation's execution, when the route ran it without Apollo and hands the request to
   * Apollo only to answer its errors (graphql/direct-execution.ts): Apollo's executor returns it.
   */
  execution?: Promise<ExecutionResult>;
}
