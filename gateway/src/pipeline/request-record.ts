import { IncomingMessage } from 'node:http';
import type { Client } from '../limits/client-identity.js';
import type { AdmittedRequest } from '../limits/client-limits.js';

/**
 * What the gateway knows about one request, made once by the front door and filled in by its
 * stages, each writing its own fields and reading the earlier stages': admit (the client and its
 * RateLimit fields), look up (the cache key memory and Redis missed), route and execute (the
 * GraphQL cost charged). No stage tells another anything but through these fields. Every field is
 * set in the constructor, so every record has one shape.
 */
export class RequestRecord implements AdmittedRequest {
  /** The client the limits identified (admit); undefined with limits off or on an unlimited path. */
  client: Client | undefined = undefined;
  /** The RateLimit and RateLimit-Policy fields this client's answers carry, once it has a pace to keep (admit, charge). */
  rateLimit: string | undefined = undefined;
  rateLimitPolicy: string | undefined = undefined;
  /** The cache key the look-up stage asked memory and Redis for, both missing: the route computes without asking again. */
  missedKey: string | undefined = undefined;
  /** The cost of the request's GraphQL operation, computed once (undefined: none that will run, or not costable). */
  cost: number | undefined = undefined;

  constructor(
    /** The request id (an incoming x-request-id, or this process's next). */
    readonly id: string,
    /** performance.now() when the front door took the request. */
    readonly started: number,
  ) {}
}

/**
 * The server's request object: Node's, with the record the front door made for it. A field every
 * request has from its construction, so requests keep one shape whether or not they reach a route.
 */
export class RecordedMessage extends IncomingMessage {
  record: RequestRecord | undefined = undefined;
}
