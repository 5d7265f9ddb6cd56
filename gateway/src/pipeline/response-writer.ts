import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Representations } from '../cache/representations.js';
import type { PlainResponse } from '../cache/response-cache.js';
import { addCommonHeaders, type Lifecycle } from '../http/common-headers.js';
import type { CorsPolicy } from '../http/cors.js';
import { JSON_CONTENT_TYPE } from '../http/media-types.js';
import { RATELIMIT_FIELD } from '../limits/ratelimit-fields.js';
import { ifNoneMatchHolds } from './conditional.js';
import { labelForAccept } from './graphql-media-type.js';
import { RequestRecord } from './request-record.js';

/** Every answer the gateway gives: a catalog read (a cache entry, or just computed), or anything else as it is. */
export type Answer = { readonly representations: Representations } | PlainResponse;

/** Which media type rules an answer follows: GraphQL's are relabelled for the request's Accept. */
export type AnswerProtocol = 'rest' | 'graphql';

/**
 * Writes every answer the gateway gives, wherever it was made: at the front door (cache hits,
 * 429s) or by a route (computed answers, its cache hits, errors, 503s). One function, so every
 * answer carries the same headers besides its own: the request id and trace (common-headers.ts),
 * the RateLimit fields noted on the record, GraphQL's media type for the Accept header, and CORS's
 * for the request's origin.
 */
export class ResponseWriter {
  constructor(
    private readonly lifecycle: Lifecycle,
    private readonly cors: CorsPolicy,
  ) {}

  /**
   * Writes `answer` and returns the status written. A catalog read goes in the encoding the client
   * accepts, with its ETag and cache headers, or as a 304 without a body when a GET's or HEAD's
   * If-None-Match names that representation (another method's met condition would be a 412, so it
   * gets the 200); its Cache-Control is private when the client's RateLimit fields make it that
   * client's own. Anything else is `Cache-Control: no-store`. A HEAD gets the GET's headers: Node
   * writes no body for it.
   */
  write(
    record: RequestRecord,
    request: IncomingMessage,
    response: ServerResponse,
    answer: Answer,
    protocol: AnswerProtocol = 'rest',
  ): number {
    if (!('representations' in answer)) {
      const headers = this.plainHeaders(record, answer);
      response.writeHead(answer.status, this.finish(record, request, headers, protocol));
      response.end(answer.body);
      return answer.status;
    }
    const representation = answer.representations.negotiate(request.headers['accept-encoding']);
    const personalised = record.rateLimit !== undefined;
    const conditional = request.method === 'GET' || request.method === 'HEAD';
    if (conditional && ifNoneMatchHolds(request.headers['if-none-match'], representation.etag)) {
      response.writeHead(
        304,
        this.finish(record, request, this.withRateLimit(record, representation.notModifiedHeaders(personalised)), protocol),
      );
      response.end();
      return 304;
    }
    response.writeHead(200, this.finish(record, request, this.withRateLimit(record, representation.headers(personalised)), protocol));
    response.end(representation.body);
    return 200;
  }

  /**
   * Writes a route's answer (`write`), the reply hijacked: Fastify's onSend hooks do not run for
   * it, its onResponse hooks (the request's log line and metrics) do. A request whose error
   * reached no hook (Fastify refused its URL) is given its record here.
   */
  respond(request: FastifyRequest, reply: FastifyReply, answer: Answer, protocol: AnswerProtocol = 'rest'): FastifyReply {
    reply.hijack();
    const record = (request.record as RequestRecord | null) ?? new RequestRecord(request.id, performance.now());
    this.write(record, request.raw, reply.raw, answer, protocol);
    return reply;
  }

  /**
   * The headers every answer to `request` carries besides its own, added to `headers`: also those
   * Fastify sends itself (health, documentation), through its onSend hook (http/common-headers.ts).
   */
  finish(record: RequestRecord, request: IncomingMessage, headers: OutgoingHttpHeader[], protocol: AnswerProtocol): OutgoingHttpHeader[] {
    if (protocol === 'graphql') labelForAccept(headers, request.headers.accept);
    return this.cors.addTo(addCommonHeaders(headers, record.id, this.lifecycle), request.headers.origin);
  }

  /**
   * The same headers on a reply Fastify sends itself (health, documentation, writes), but CORS's,
   * which @fastify/cors sets there.
   */
  finishReply(record: RequestRecord | null, reply: FastifyReply): void {
    if (!record) return;
    const headers = addCommonHeaders([], record.id, this.lifecycle);
    this.withRateLimit(record, headers);
    for (let index = 0; index < headers.length; index += 2) reply.header(String(headers[index]), headers[index + 1]);
    if (reply.statusCode >= 400 || !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  }

  private plainHeaders(record: RequestRecord, { status, headers: own, body }: PlainResponse): OutgoingHttpHeader[] {
    const headers: OutgoingHttpHeader[] = [];
    // No content has no type and no length (RFC 9110 §8.6): only what says it is not to be kept.
    if (status === 204) return this.withRateLimit(record, ['cache-control', 'no-store']);
    let typed = false;
    let cacheControl = false;
    let rateLimited = false;
    if (own) {
      for (const [name, value] of own) {
        headers.push(name, value);
        if (name === 'content-type') typed = true;
        else if (name === 'cache-control') cacheControl = true;
        else if (name === RATELIMIT_FIELD) rateLimited = true;
      }
    }
    if (!typed) headers.push('content-type', JSON_CONTENT_TYPE);
    headers.push('content-length', Buffer.byteLength(body));
    // Only catalog reads say how they may be cached: errors, writes and refusals are not to be kept.
    if (!cacheControl) headers.push('cache-control', 'no-store');
    return rateLimited ? headers : this.withRateLimit(record, headers);
  }

  private withRateLimit(record: RequestRecord, headers: OutgoingHttpHeader[]): OutgoingHttpHeader[] {
    if (record.rateLimit !== undefined) headers.push(RATELIMIT_FIELD, record.rateLimit, 'ratelimit-policy', record.rateLimitPolicy!);
    return headers;
  }
}
