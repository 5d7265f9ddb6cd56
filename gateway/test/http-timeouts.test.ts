// Connections behave as load balancers expect: an idle keep-alive connection stays open longer
// than the proxy in front keeps its own (never closed first after Node's 5 s default, which would
// reset the proxy's next request on it), and slow clients cannot hold a connection forever.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.js';
import { createFixtureDatabase, startListeningGateway } from './support/gateway.js';

const KEEP_ALIVE_MS = 8_000;
const HEADERS_MS = 1_000;

/** Sends a keep-alive GET on `socket` and resolves with the response's head and body once complete. */
function getOn(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const [head = '', body] = text.split('\r\n\r\n');
      if (body !== undefined && Buffer.byteLength(body) >= Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN)) {
        socket.off('data', onData).off('close', onClose);
        resolve(text);
      }
    };
    const onClose = () => reject(new Error(`the server closed the connection; received: ${JSON.stringify(text)}`));
    if (socket.closed) return onClose();
    socket.on('data', onData).once('close', onClose);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: catalog\r\n\r\n`);
  });
}

describe('HTTP server timeouts', () => {
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    const started = await startListeningGateway(await createFixtureDatabase(), {
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: '2000',
    });
    app = started.app;
    port = Number(new URL(started.base).port);
  });
  after(() => app.close());

  const open = async () => {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return socket;
  };

  it('keeps an idle keep-alive connection well past 5 s, and closes it once the configured idle timeout has passed', async () => {
    const socket = await open();
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
    const first = await getOn(socket, '/products/1');
    assert.match(first, /^HTTP\/1\.1 200 /);
    assert.match(first, new RegExp(`\\r\\nkeep-alive: timeout=${KEEP_ALIVE_MS / 1000}\\r\\n`, 'i'), 'clients are told how long');
    await sleep(6_500);
    assert.equal(socket.closed, false, 'open after 6.5 s idle');
    // The proxy's next request on it is served (from the cache's hot lane, or Fastify: both on this server).
    assert.match(await getOn(socket, '/products/2'), /^HTTP\/1\.1 200 /);
    const idleFrom = performance.now();
    const idleMs = (await closed) - idleFrom;
    // A lower bound only: closing early is the bug; when it closes after that depends on the machine.
    assert.ok(idleMs >= KEEP_ALIVE_MS - 50, `closed after ${idleMs.toFixed(0)} ms idle`);
    console.log(`idle keep-alive connection closed after ${idleMs.toFixed(0)} ms (configured ${KEEP_ALIVE_MS} ms)`);
  });

  it('answers a client that does not finish its headers in time with a 408 and closes the connection', async () => {
    const socket = await open();
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise((resolve) => socket.once('close', () => resolve('closed')));
    socket.write('GET /products/1 HTTP/1.1\r\nHost: catalog\r\n');
    // A bound on waiting, fifteen times the timeout configured: Node's default would wait a minute.
    const outcome = await Promise.race([closed, sleep(15 * HEADERS_MS, 'still open')]);
    socket.destroy();
    assert.equal(outcome, 'closed', `after ${15 * HEADERS_MS} ms; received: ${JSON.stringify(received)}`);
    assert.match(received, /^HTTP\/1\.1 408 /, received);
    assert.match(received, /"error":"the request took too long to arrive"/);
  });

  it('refuses a headers timeout longer than the request timeout at start-up', () => {
    assert.throws(
      () => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000', HTTP_REQUEST_TIMEOUT_MS: '30000' }),
      /HTTP_HEADERS_TIMEOUT_MS: 40000 is longer than HTTP_REQUEST_TIMEOUT_MS \(30000\)/,
    );
  });
});
