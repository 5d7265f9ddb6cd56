import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyInstance } from 'fastify';
import { addCommonHeaders } from '../src/http/common-headers.js';
import { tracingServer } from '../src/telemetry/request-spans.js';
import { EdgeDecidedSampler, EdgeSampling } from '../src/telemetry/sampling.js';
import { requestSpan, useTracer } from '../src/telemetry/tracing.js';

/** A caller's traceparent that asks for its request to be traced (flags 01). */
const SAMPLED_PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Own property names and symbols of an object, as its shape's fingerprint. */
const ownKeys = (object: object): string[] => Reflect.ownKeys(object).map(String).sort();

interface Seen {
  /** The trace the handler and the onResponse hook ran in (undefined: none). */
  handlerTrace: string | undefined;
  onResponseTrace: string | undefined;
  requestKeys: string[];
  responseKeys: string[];
  socketKeys: string[];
}

/**
 * How a traced request's context reaches its Fastify route (telemetry/request-spans.ts), in
 * process with the SDK's context manager: the edge runs the request's listener in it, and Node
 * carries it to the body's events and the response's, without binding the request or response
 * objects to it. The parent-based sampler lets each request choose with its traceparent whether
 * it is traced.
 */
describe('a traced request in Fastify', () => {
  let app: FastifyInstance;
  let port: number;
  const seen: Seen[] = [];
  const traceOfActive = () => requestSpan()?.spanContext().traceId;

  before(async () => {
    const provider = new NodeTracerProvider({ sampler: new EdgeDecidedSampler() });
    const contextManager = new AsyncLocalStorageContextManager();
    provider.register({ contextManager });
    useTracer(
      provider.getTracer('test'),
      EdgeSampling.of({ OTEL_TRACES_SAMPLER: 'parentbased_always_off', OTEL_TRACES_SAMPLER_ARG: '1' }),
      contextManager,
    );
    app = Fastify({
      serverFactory: tracingServer((handler: (request: IncomingMessage, response: ServerResponse) => void) => createServer(handler)),
    });
    // Adds `traceresponse` to a traced request's answer.
    app.addHook('onSend', (request, reply, payload, done) => {
      const common = addCommonHeaders([], request.id, { closing: false });
      for (let index = 0; index < common.length; index += 2) reply.header(String(common[index]), common[index + 1]);
      done(null, payload);
    });
    app.addHook('onResponse', (request, _reply, done) => {
      seen.at(-1)!.onResponseTrace = traceOfActive();
      done();
    });
    app.post('/echo', async (request, reply) => {
      seen.push({
        handlerTrace: traceOfActive(),
        onResponseTrace: undefined,
        requestKeys: ownKeys(request.raw),
        responseKeys: ownKeys(reply.raw),
        socketKeys: ownKeys(request.raw.socket),
      });
      return { received: (request.body as { text: string }).text };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });

  after(() => app.close());

  /** One connection for every request: its parser and socket outlive each of them. */
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  after(() => agent.destroy());

  /**
   * POSTs a JSON body sent a while after the headers, so Fastify reads it from the socket's later
   * events; on the shared connection, or on a new one (`connection: false`).
   */
  async function postLater(
    traceparent: string | undefined,
    connection: Agent | false = agent,
  ): Promise<{ traceresponse: string | undefined; body: string }> {
    const sent = httpRequest({
      agent: connection,
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json', 'content-length': '15', ...(traceparent ? { traceparent } : {}) },
    });
    sent.flushHeaders();
    await sleep(50);
    sent.end('{"text":"late"}');
    const [response] = (await once(sent, 'response')) as [IncomingMessage];
    let body = '';
    for await (const chunk of response) body += chunk;
    // onResponse hooks run once the response is sent: wait for them before reading what they saw.
    await sleep(20);
    return { traceresponse: response.headers.traceresponse as string | undefined, body };
  }

  it('runs the handler and the onResponse hooks of a traced request in its trace, though its body arrived later', async () => {
    const { traceresponse, body } = await postLater(SAMPLED_PARENT);
    assert.equal(body, '{"received":"late"}');
    const traceId = traceresponse?.split('-')[1];
    assert.equal(traceId, SAMPLED_PARENT.split('-')[1], 'the caller trace is continued');
    assert.equal(seen.at(-1)!.handlerTrace, traceId, 'the handler runs in the request trace');
    assert.equal(seen.at(-1)!.onResponseTrace, traceId, 'the onResponse hooks run in the request trace');
  });

  it('runs an untraced request in no trace, on the connection a traced one used before it', async () => {
    const { traceresponse } = await postLater(undefined);
    assert.equal(traceresponse, undefined);
    assert.equal(seen.at(-1)!.handlerTrace, undefined);
    assert.equal(seen.at(-1)!.onResponseTrace, undefined);
  });

  it('runs a traced request in its own trace, on the connection other requests used before it', async () => {
    const other = '00-1bf7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { traceresponse } = await postLater(other);
    assert.equal(traceresponse?.split('-')[1], other.split('-')[1]);
    assert.equal(seen.at(-1)!.handlerTrace, other.split('-')[1]);
    assert.equal(seen.at(-1)!.onResponseTrace, other.split('-')[1]);
  });

  it("leaves a traced request's request, response and socket the shape of every other one (Node's HTTP code sees one shape)", async () => {
    // Each on a connection of its own: a socket would keep what a traced request added to it.
    await postLater(undefined, false);
    const untraced = seen.at(-1)!;
    await postLater(SAMPLED_PARENT, false);
    const traced = seen.at(-1)!;
    assert.ok(traced.handlerTrace);
    assert.deepEqual(traced.requestKeys, untraced.requestKeys);
    assert.deepEqual(traced.responseKeys, untraced.responseKeys);
    assert.deepEqual(traced.socketKeys, untraced.socketKeys);
  });
});
