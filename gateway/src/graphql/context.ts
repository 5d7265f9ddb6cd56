import type { RequestScope, Services } from '../services.js';

export interface GraphQLContext {
  services: Services;
  scope: RequestScope;
  authorization: string | undefined;
  /** Set when the response carries errors: such responses are never cached. */
  failed: boolean;
}
