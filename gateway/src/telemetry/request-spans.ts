import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Span, type Tracer } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_QUERY,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { EdgeSampling } from './sampling.js';
import { REQUEST_SPAN, activeSampling, activeTracer, requestSpan } from './tracing.js';

/**
 * The response header that names a traced request's trace: `traceresponse` of W3C Trace Context
 * Level 2, `00-<trace id>-<the gateway's server span id>-01`. Only traced requests carry it (an
 * untraced request has no trace to look up).
 */
export const TRACE_RESPONSE_HEADER = 'traceresponse';

/** The gateway's own span attributes (the rest are OpenTelemetry's semantic conventions). */
export const ATTR_CACHE_OUTCOME = 'catalog.cache.outcome';
export const ATTR_GRAPHQL_OPERATION_NAME = 'graphql.operation.name';
export const ATTR_GRAPHQL_OPERATION_TYPE = 'graphql.operation.type';

/** How the response cache answered a request: from memory, from Redis, or not at all. */
export type CacheOutcome = 'memory_hit' | 'redis_hit' | 'miss';

/**
 * The server's request listener, tracing the requests the sampler picks: each gets a server span
 * (continuing the caller's trace when it sends `traceparent`), the `traceresponse` header, and a
 * context that everything it runs inherits (the front door, Fastify's hooks and routes, the body's
 * stream events). The listener runs untouched for every other request, and is returned as it is
 * when tracing is off.
 */
export function traceRequests<Listener extends RequestListener>(listener: Listener): Listener {
  const tracer = activeTracer();
  const sampling = activeSampling();
  if (!tracer || !sampling) return listener;
  return ((request: IncomingMessage, response: ServerResponse) => {
    if (!traced(sampling, request)) return listener(request, response as Parameters<Listener>[1]);
    traceRequest(tracer, listener, request, response);
  }) as Listener;
}

/** A server factory (Fastify's `serverFactory`) whose server traces its requests with `traceRequests`. */
export function tracingServer<Handler>(factory: (handler: Handler) => Server): (handler: Handler) => Server {
  if (!activeTracer()) return factory;
  return (handler) => {
    const server = factory(handler);
    for (const listener of server.listeners('request') as RequestListener[]) {
      server.removeListener('request', listener);
      server.on('request', traceRequests(listener));
    }
    server.on('connection', lookUpPeer);
    return server;
  };
}

/**
 * A traced request's span names its client's address, which Node looks up once per connection
 * and keeps on the socket, as a property of its own. Looked up as each connection opens, every
 * socket gets it at the same point and all keep one shape; looked up for the traced requests
 * only, their sockets would get shapes of their own, and Node's HTTP code, which handles every
 * socket, would run slower for every request.
 */
function lookUpPeer(socket: Socket): void {
  void socket.remoteAddress;
}

function traced(sampling: EdgeSampling, request: IncomingMessage): boolean {
  const traceparent = request.headers.traceparent;
  return sampling.traces(typeof traceparent === 'string' ? traceparent : undefined);
}

function traceRequest(tracer: Tracer, listener: RequestListener, request: IncomingMessage, response: ServerResponse): void {
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const method = request.method ?? 'GET';
  const url = request.url ?? '/';
  const queryAt = url.indexOf('?');
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_PATH]: queryAt < 0 ? url : url.slice(0, queryAt),
        [ATTR_URL_QUERY]: queryAt < 0 ? undefined : url.slice(queryAt + 1),
        [ATTR_URL_SCHEME]: 'http',
        [ATTR_NETWORK_PROTOCOL_VERSION]: request.httpVersion,
        [ATTR_CLIENT_ADDRESS]: request.socket.remoteAddress,
        [ATTR_USER_AGENT_ORIGINAL]: request.headers['user-agent'],
      },
    },
    parent,
  );
  const active = trace.setSpan(parent, span).setValue(REQUEST_SPAN, span);
  // Not context.bind(active, request / response): Node already runs their events (a body read
  // later, 'finish') in the context the request was emitted in, and binding patches their listener
  // methods, own properties that give traced requests' objects other shapes than everyone else's
  // and so make Node's HTTP code slower for every request.
  context.with(active, listener, undefined, request, response);
  // The cache's edge answers within the listener: its span ends here, and its response gets no
  // listener the untraced ones do not have. A routed request's span ends when its response
  // closes, after 'finish', so Fastify's onResponse hooks (which name the route) have run.
  if (response.writableEnded) endRequestSpan(span, response, true);
  else response.once('close', () => endRequestSpan(span, response, response.writableFinished));
}

function endRequestSpan(span: Span, response: ServerResponse, sent: boolean): void {
  if (response.headersSent) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.statusCode);
  if (!sent) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'the connection closed before the response was sent' });
  } else if (response.statusCode >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Names the traced request's span after its route (`GET /products/:product_id`), once the route is known. */
export function nameRequestRoute(method: string, route: string | undefined): void {
  const span = requestSpan();
  if (!span || route === undefined) return;
  span.setAttribute(ATTR_HTTP_ROUTE, route);
  span.updateName(`${method} ${route}`);
}

/** Records on the traced request how the response cache answered it (a later lookup's outcome wins). */
export function noteCacheOutcome(outcome: CacheOutcome): void {
  requestSpan()?.setAttribute(ATTR_CACHE_OUTCOME, outcome);
}

/** Records on the traced request the GraphQL operation it ran. */
export function noteGraphqlOperation(name: string, type: string): void {
  requestSpan()?.setAttributes({ [ATTR_GRAPHQL_OPERATION_NAME]: name, [ATTR_GRAPHQL_OPERATION_TYPE]: type });
}

/**
 * The `traceresponse` field of the traced request being handled, if any: added to the headers
 * its answer is written with (http/common-headers.ts), not set on the response ahead of them,
 * which would make Node merge two header sets on the traced requests only.
 */
export function traceResponseField(): string | undefined {
  const span = requestSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return `00-${traceId}-${spanId}-01`;
}

/** The traced request's trace and span ids, as exemplar labels of the metrics it is observed in. */
export function traceExemplar(): { trace_id: string; span_id: string } | undefined {
  const span = requestSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
