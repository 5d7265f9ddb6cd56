import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createFixtureDatabase, startListeningGateway } from './support/gateway.js';

/** Sends raw bytes to the listening gateway and returns the raw response (the connection is closed by either side). */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('end', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

function parseRaw(raw: string): { status: number; headers: string; body: string } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body };
}

describe('the HTTP contract the OpenAPI document states', () => {
  let app: FastifyInstance;
  let port: number;
  before(async () => {
    let base: string;
    ({ app, base } = await startListeningGateway(await createFixtureDatabase()));
    port = Number(new URL(base).port);
  });
  after(() => app.close());

  it('answers HEAD on every GET route, also when the hot lane holds the response', async () => {
    for (const url of ['/products', '/products/1', '/products/1/styles', '/products/1/related']) {
      for (let round = 0; round < 2; round += 1) {
        // The first GET fills the cache; the second round's HEAD meets the hot lane.
        await fetch(`http://127.0.0.1:${port}${url}`);
        const head = await fetch(`http://127.0.0.1:${port}${url}`, { method: 'HEAD' });
        assert.equal(head.status, 200, `HEAD ${url} (round ${round})`);
        assert.equal(await head.text(), '', 'no body');
        assert.match(head.headers.get('content-type') ?? '', /application\/json/);
      }
    }
  });

  it('answers an unsupported method on a known path with 405 and Allow', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['PATCH', '/products/1', /^(?=.*GET)(?=.*PUT)(?=.*DELETE)/],
      ['DELETE', '/products/1/styles', /^(?=.*GET)(?=.*HEAD)/],
      ['PUT', '/graphql', /POST/],
    ];
    for (const [method, url, allow] of cases) {
      const response = await fetch(`http://127.0.0.1:${port}${url}`, { method });
      assert.equal(response.status, 405, `${method} ${url}`);
      assert.match(response.headers.get('allow') ?? '', allow, `${method} ${url}: Allow`);
      assert.match((await response.json()).error, new RegExp(`${method} is not allowed on ${url.replace('/', '\\/')}`));
    }
    assert.equal((await fetch(`http://127.0.0.1:${port}/nowhere`, { method: 'PATCH' })).status, 404, 'unknown paths stay 404');
  });

  it('answers every id the documented pattern allows: the largest is a 404, one digit more a 400', async () => {
    const largest = await fetch(`http://127.0.0.1:${port}/products/999999999999999`);
    assert.equal(largest.status, 404);
    const spec = await (await fetch(`http://127.0.0.1:${port}/docs/json`)).json();
    const pattern = new RegExp(
      spec.paths['/products/{product_id}'].get.parameters.find((p: { name: string }) => p.name === 'product_id').schema.pattern,
    );
    assert.ok(pattern.test('999999999999999'), 'the document allows the largest id');
    assert.ok(!pattern.test('9999999999999999'), 'and refuses one digit more, as the server does');
    const tooLong = await fetch(`http://127.0.0.1:${port}/products/9999999999999999`);
    assert.equal(tooLong.status, 400);
  });

  it('keeps the {"error": …} shape for errors Node raises before any route: 414, 431, bad Content-Length', async () => {
    const longUrl = parseRaw(await rawRequest(port, `GET /products/${'1'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
    assert.equal(longUrl.status, 414, longUrl.headers);
    assert.match(JSON.parse(longUrl.body).error, /URL/);

    const bigHeaders = parseRaw(await rawRequest(port, `GET /products HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    assert.equal(bigHeaders.status, 431);
    assert.match(JSON.parse(bigHeaders.body).error, /headers/);

    const badLength = parseRaw(await rawRequest(port, 'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'));
    assert.equal(badLength.status, 400);
    assert.match(JSON.parse(badLength.body).error, /Content-Length/);
    assert.match(badLength.headers, /content-type: application\/json/);
  });
});
