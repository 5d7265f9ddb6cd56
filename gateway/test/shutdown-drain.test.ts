// Zero-downtime rollouts: while a replica drains, a request that already reached it on an open
// connection is served (with `Connection: close`), never refused. Kubernetes keeps established
// connections to a terminating pod, so such requests do arrive after SIGTERM.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { createFixtureDatabase, startListeningGateway } from './support/gateway.js';

/** Everything the server writes on `socket` until it closes it. */
function readUntilClosed(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/** Sends one keep-alive POST /graphql on `socket`; resolves with the response text (head and body). */
function postOn(socket: Socket): Promise<string> {
  const body = JSON.stringify({ query: '{ product(id: "1") { id } }' });
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const [head = '', rest] = text.split('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? NaN);
      if (rest !== undefined && Buffer.byteLength(rest) >= length) {
        socket.off('data', onData).off('close', onClose);
        resolve(text);
      }
    };
    const onClose = () => reject(new Error(`the server closed the connection; received: ${JSON.stringify(text)}`));
    if (socket.closed) return onClose();
    socket.on('data', onData).once('close', onClose);
    socket.write(
      `POST /graphql HTTP/1.1\r\nHost: catalog\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

describe('draining on close', () => {
  it("keeps an idle keep-alive connection open while draining: the client's next request (a POST, which clients never retry) is served and told to hang up", async () => {
    const { app, base } = await startListeningGateway(await createFixtureDatabase());
    const socket = connect(Number(new URL(base).port), '127.0.0.1').on('error', () => {});
    await new Promise((resolve) => socket.once('connect', resolve));
    assert.match(await postOn(socket), /^HTTP\/1\.1 200 /);
    // The connection is idle now. Draining starts; the client, unaware, sends its next request.
    const closed = app.closeGracefully(5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const text = await postOn(socket);
    assert.match(text, /^HTTP\/1\.1 200 /, text);
    assert.match(text, /\r\nconnection: close\r\n/i);
    await closed;
  });

  it('serves a request whose headers arrive on an open connection after close began, and asks the client to hang up', async () => {
    const { app, base } = await startListeningGateway(await createFixtureDatabase());
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const response = readUntilClosed(socket);
    // The request has begun (so the connection is not idle) but is not complete when close starts.
    socket.write('GET /products/1 HTTP/1.1\r\nHost: catalog\r\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = app.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.write('\r\n');

    const text = await response;
    await closed;
    const [head = '', body = ''] = text.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 200 /, text);
    assert.match(head, /\r\nconnection: close\r\n/i);
    assert.equal(JSON.parse(body).id, 1);
  });
});
