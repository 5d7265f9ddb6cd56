import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { restErrorBody } from './error-bodies.js';

/** Node's header limit is 16 KiB; a request line over half of it is answered as a URL that is too long. */
const LONG_REQUEST_LINE = 8 * 1024;

/** Node's HTTP parser errors, as the status and message a client gets. */
function describe(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): [number, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW': {
      // Node counts the request line with the headers: a request line taking most of the limit is a long URL.
      const packet = error.rawPacket ?? Buffer.alloc(0);
      const lineEnd = packet.indexOf('\r\n');
      const requestLine = lineEnd === -1 ? packet.length : lineEnd;
      return requestLine > LONG_REQUEST_LINE
        ? [414, 'the URL is too long (8 KiB at most)']
        : [431, 'request headers are too large (16 KiB at most)'];
    }
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return [400, 'invalid Content-Length header'];
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return [400, 'invalid Transfer-Encoding header'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'the request took too long to arrive'];
    default:
      return [400, 'malformed HTTP request'];
  }
}

/**
 * Errors Node raises before a request reaches any route (a URL or headers over the size limit, a
 * bad Content-Length) leave in the same `{"error": …}` shape as every other error; the
 * connection is closed since the parser cannot continue on it.
 */
export function answerClientError(error: Error, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] = describe(error);
  const body = restErrorBody(message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
