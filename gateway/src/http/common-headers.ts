import type { OutgoingHttpHeader } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { TRACE_RESPONSE_HEADER, traceResponseField } from '../telemetry/request-spans.js';

export interface Lifecycle {
  /** Set when the server starts draining: responses then ask clients to close the connection. */
  closing: boolean;
}

/**
 * Adds the headers every response carries: the request id, echoed so a client can quote it;
 * the trace's id when the request is traced (`traceresponse`); and, while closing,
 * `Connection: close`, so keep-alive clients hang up at once instead of holding the drain open
 * until their idle timeout.
 */
export function addCommonHeaders(headers: OutgoingHttpHeader[], requestId: string, lifecycle: Lifecycle): OutgoingHttpHeader[] {
  headers.push('x-request-id', requestId);
  const traceResponse = traceResponseField();
  if (traceResponse) headers.push(TRACE_RESPONSE_HEADER, traceResponse);
  if (lifecycle.closing) headers.push('connection', 'close');
  return headers;
}

/** Draining starts with Fastify's close: from then on every response asks its client to hang up. */
export function installDraining(app: FastifyInstance, lifecycle: Lifecycle): void {
  app.addHook('preClose', async () => {
    lifecycle.closing = true;
  });
}
