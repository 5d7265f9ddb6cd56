import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { MemoryEntry } from '../cache/memory-store.js';
import type { RequestIdOf } from '../http/request-ids.js';
import type { ClientLimits } from '../limits/client-limits.js';
import type { CacheLookup, GraphqlOperationRef } from './cache-lookup.js';
import type { EdgeAccounting, EdgeSource } from './edge-accounting.js';
import { RecordedMessage, RequestRecord } from './request-record.js';
import type { AnswerProtocol, ResponseWriter } from './response-writer.js';

/** The GraphQL stage's part in the answers the front door gives from the cache: what it records and tells its plugins. */
export interface CachedGraphqlAnswers {
  answered(record: RequestRecord, request: IncomingMessage, answered: GraphqlOperationRef, body: string): void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's record (pipeline/request-record.ts), made by the front door before any route. */
    readonly record: RequestRecord;
  }
}

/**
 * Where every request enters: it makes the request's record and runs the first stages. Admit
 * (the client limits, once per request: a client over its quota gets its 429 and nothing else);
 * look up (a GET or HEAD the cache holds is answered at once from memory, else from Redis on its
 * way into memory, without Fastify's routing, per-request objects and hook chain); and route:
 * everything else goes to Fastify, which routes and validates and reads the record from there.
 * Every answer, here and in the routes, is written by the one ResponseWriter.
 */
export class FrontDoor {
  private graphql: CachedGraphqlAnswers | undefined = undefined;

  constructor(
    private readonly lookup: CacheLookup,
    private readonly writer: ResponseWriter,
    private readonly accounting: EdgeAccounting,
    private readonly requestIdOf: RequestIdOf,
    private readonly limits: ClientLimits,
  ) {}

  /** The HTTP server (Fastify's serverFactory): its requests carry their records. */
  server(options: ServerOptions): (fastifyHandler: RequestListener) => Server {
    return (fastifyHandler) =>
      createServer({ ...options, IncomingMessage: RecordedMessage }, (request, response) =>
        this.enter(request as RecordedMessage, response, fastifyHandler),
      );
  }

  /** Set once, by the GraphQL route as it is registered: GraphQL answers given here are its to account for. */
  answerGraphqlWith(answers: CachedGraphqlAnswers): void {
    this.graphql = answers;
  }

  /** Fastify's genReqId: the id the record was made with. */
  readonly requestIdFor = (request: IncomingMessage): string => (request as RecordedMessage).record?.id ?? this.requestIdOf(request);

  private enter(request: RecordedMessage, response: ServerResponse, route: RequestListener): void {
    const record = (request.record = new RequestRecord(this.requestIdOf(request), performance.now()));
    const refused = this.refuse(record, request, response);
    if (refused !== undefined) return this.accounting.refused(record, request, refused);
    const entry = this.lookup.memoryEntry(request);
    if (entry) return this.answer(record, request, response, entry, 'memory');
    const key = this.lookup.sharedKey(request);
    if (key === undefined) return route(request, response);
    void this.lookUpShared(record, request, response, key, route);
  }

  /** The admit stage: the status written when the client is over its quota (its 429), else undefined. */
  private refuse(record: RequestRecord, request: IncomingMessage, response: ServerResponse): number | undefined {
    const refusal = this.limits.admit(request, record);
    return refusal && this.writer.write(record, request, response, refusal);
  }

  private async lookUpShared(
    record: RequestRecord,
    request: IncomingMessage,
    response: ServerResponse,
    key: string,
    route: RequestListener,
  ): Promise<void> {
    let shared: MemoryEntry | undefined;
    try {
      shared = await this.lookup.sharedEntry(record, key);
    } catch {
      // Redis failures read as misses (ResponseCache.sharedEntry); anything else is the route's to report.
    }
    if (shared) this.answer(record, request, response, shared, 'shared');
    else route(request, response);
  }

  private answer(record: RequestRecord, request: IncomingMessage, response: ServerResponse, entry: MemoryEntry, source: EdgeSource): void {
    let protocol: AnswerProtocol = 'rest';
    let graphql: GraphqlOperationRef | undefined;
    if (entry.route === '/graphql') {
      // As its route would: the operation's cost charged, answered from the cache or not.
      protocol = 'graphql';
      graphql = this.lookup.graphqlOf(request.url!);
      const refusal = this.limits.chargeGraphQLCost(request, record, graphql?.cost);
      if (refusal) return this.accounting.refused(record, request, this.writer.write(record, request, response, refusal, protocol));
    }
    const status = this.writer.write(record, request, response, entry, protocol) as 200 | 304;
    this.accounting.answered(record, request, entry.route, status, source);
    if (graphql) this.graphql?.answered(record, request, graphql, entry.representations.body as string);
  }

  /**
   * The front door inside Fastify: every request's record on its Fastify request. A request that
   * reached Fastify without the server (`inject`) enters here: its record is made and it is admitted.
   */
  install(app: FastifyInstance): void {
    app.decorateRequest('record', null as unknown as RequestRecord);
    app.addHook('onRequest', (request, reply, done) => {
      const made = (request.raw as RecordedMessage).record;
      const record = made ?? new RequestRecord(request.id, performance.now());
      (request as { record: RequestRecord }).record = record;
      if (made || this.refuse(record, request.raw, reply.raw) === undefined) return done();
      reply.hijack();
    });
    // What Fastify sends itself (health, documentation, writes) carries the same headers as what the writer writes.
    app.addHook('onSend', (request, reply, payload, done) => {
      this.writer.finishReply(request.record, reply);
      done(null, payload);
    });
  }
}
