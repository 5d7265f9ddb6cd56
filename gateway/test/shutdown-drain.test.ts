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

describe('draining on close', () => {
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
