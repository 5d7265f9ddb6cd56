// A loopback HTTP server standing in for a purge API (Fastly's, Cloudflare's, a Varnish's PURGE):
// records every request as it arrived and answers what the test says.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface CapturedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface CaptureServer {
  readonly base: string;
  readonly requests: CapturedRequest[];
  /** What the next requests are answered (status and body), until changed. */
  answer(status: number, body?: string): void;
  close(): Promise<void>;
}

export async function startCaptureServer(): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  let reply = { status: 200, body: '{"success":true}' };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      response.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests,
    answer(status, body = status < 300 ? '{"success":true}' : '{"success":false,"errors":[{"message":"refused"}]}') {
      reply = { status, body };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
