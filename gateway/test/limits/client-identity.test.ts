import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { clientAddressKey, NetworkSet, parseAddress, parseNetwork, type Network } from '../../src/limits/ip-networks.js';
import { createFixtureDatabase, metricValue, startListeningGateway } from '../support/gateway.js';
import { awayFromWindowEdge, fieldItems, limitsEnv, newClient, newIpv6Client, send } from './support.js';
import { scrapeMetrics } from '../../../scripts/test/metrics.js';

/** Clients known by their address may make this many requests per window. */
const PER_ADDRESS = 2;
/** The proxy the gateway trusts; the test's requests leave from it or from other loopback addresses. */
const PROXY = '127.0.0.2';

describe('who a request counts against', () => {
  const listed = newClient('listed');
  const internal = newClient('internal');
  let app: FastifyInstance;
  let base: string;
  before(async () => {
    // No Redis: counts by address would outlive the run there, and identity does not depend on it.
    ({ app, base } = await startListeningGateway(await createFixtureDatabase(), {
      ...limitsEnv({
        requests: 1_000,
        classes: { ip: { requests: PER_ADDRESS } },
        clients: {
          [listed.name]: { keySha256: listed.keySha256, requests: 3 },
          [internal.name]: { keySha256: internal.keySha256, exempt: true },
        },
        // Both families are accepted; only the IPv4 one matches this test's sockets.
        trustedProxies: `${PROXY}/32, 2001:db8:ffff::/48`,
      }),
    }));
    // Cached before counting starts: every answer below comes from the hot lane or is refused there.
    assert.equal((await send(base, '/products/1', { localAddress: '127.0.0.9' })).status, 200);
    await awayFromWindowEdge();
  });
  after(() => app.close());

  const statuses = async (count: number, options: Parameters<typeof send>[2] | (() => Parameters<typeof send>[2])) => {
    const answers: number[] = [];
    for (let index = 0; index < count; index += 1) {
      answers.push((await send(base, '/products/1', typeof options === 'function' ? options() : options)).status);
    }
    return answers;
  };

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    // Through the proxy, two forwarded clients count apart.
    const [first, second] = [newIpv6Client(), newIpv6Client()];
    assert.deepEqual(await statuses(3, { localAddress: PROXY, headers: { 'x-forwarded-for': first } }), [200, 200, 429]);
    assert.deepEqual(await statuses(1, { localAddress: PROXY, headers: { 'x-forwarded-for': second } }), [200]);
    // From elsewhere the header proves nothing: every request counts against the socket's address.
    const fromElsewhere = await statuses(3, () => ({ localAddress: '127.0.0.3', headers: { 'x-forwarded-for': newIpv6Client() } }));
    assert.deepEqual(fromElsewhere, [200, 200, 429]);
  });

  it('takes the rightmost hop a trusted proxy did not write, and an IPv6 client by its /64', async () => {
    const client = newIpv6Client(); // 2001:db8:x:y::1
    const sameNetwork = client.replace(/::1$/, '::abcd:1');
    // What the client wrote itself (the left hops) changes every time; the hops after it are trusted proxies.
    const hops = (address: string) => ({
      localAddress: PROXY,
      headers: { 'x-forwarded-for': `198.51.100.${randomBytes(1)[0]}, ${address}, 2001:db8:ffff::7, ${PROXY}` },
    });
    assert.deepEqual(await statuses(2, () => hops(client)), [200, 200]);
    const refused = await send(base, '/products/1', hops(sameNetwork));
    assert.equal(refused.status, 429);
    assert.deepEqual(fieldItems(refused.headers['ratelimit-policy']).requests, { q: String(PER_ADDRESS), w: '3600' });
  });

  it('knows a listed key by the API-key header or as a bearer token; an unlisted key counts against the address', async () => {
    const byHeader = { localAddress: '127.0.0.4', headers: { 'x-api-key': listed.key } };
    const byToken = { localAddress: '127.0.0.5', headers: { authorization: `Bearer ${listed.key}` } };
    // One client however it presents its key, from wherever, with its own limit of 3.
    assert.deepEqual([...(await statuses(2, byHeader)), ...(await statuses(2, byToken))], [200, 200, 200, 429]);
    const refused = await send(base, '/products/1', byHeader);
    assert.deepEqual(fieldItems(refused.headers['ratelimit-policy']).requests, { q: '3', w: '3600' });

    // Keys made up per request do not make fresh clients: they count against their address.
    const madeUp = () => ({ localAddress: '127.0.0.6', headers: { 'x-api-key': `made-up-${randomBytes(8).toString('hex')}` } });
    assert.deepEqual(await statuses(3, madeUp), [200, 200, 429]);
    const madeUpTokens = () => ({ localAddress: '127.0.0.7', headers: { authorization: `Bearer ${randomBytes(8).toString('hex')}` } });
    assert.deepEqual(await statuses(3, madeUpTokens), [200, 200, 429]);

    const metrics = await scrapeMetrics(app);
    assert.equal(
      metricValue(metrics, `catalog_rate_limited_requests_total{client_class="bearer",client="${listed.name}",policy="requests"}`),
      1,
    );
    assert.equal(
      metricValue(metrics, `catalog_rate_limited_requests_total{client_class="api-key",client="${listed.name}",policy="requests"}`),
      1,
    );
    assert.ok(metricValue(metrics, 'catalog_rate_limited_requests_total{client_class="ip",client="anonymous",policy="requests"}') >= 4);
    assert.doesNotMatch(metrics, new RegExp(listed.key));
  });

  it('never limits an exempt client, nor probes', async () => {
    // Its address is over its limit; with its key, the internal client is not.
    assert.deepEqual(await statuses(PER_ADDRESS + 1, { localAddress: '127.0.0.8' }), [200, 200, 429]);
    const answers = await statuses(2 * PER_ADDRESS, { localAddress: '127.0.0.8', headers: { 'x-api-key': internal.key } });
    assert.deepEqual(answers, Array(2 * PER_ADDRESS).fill(200));
    const last = await send(base, '/products/1', { localAddress: '127.0.0.8', headers: { 'x-api-key': internal.key } });
    assert.equal(last.headers.ratelimit, undefined);
    // Nor its probes.
    assert.equal((await send(base, '/healthz', { localAddress: '127.0.0.8' })).status, 200);
    assert.equal((await send(base, '/readyz', { localAddress: '127.0.0.8' })).status, 200);
  });
});

describe('addresses and networks', () => {
  const key = (text: string) => clientAddressKey(parseAddress(text)!);
  const networks = (...texts: string[]) => new NetworkSet(texts.map((text) => parseNetwork(text) as Network));

  it('names an IPv4 client by its address and an IPv6 client by its /64, in any spelling', () => {
    assert.equal(key('203.0.113.7'), '203.0.113.7');
    assert.equal(key('::ffff:203.0.113.7'), '203.0.113.7');
    for (const spelling of [
      '2001:db8:a:b::1',
      '2001:0db8:000a:000b:0:0:0:ffff',
      '2001:db8:a:b:c:d:e:f',
      '2001:db8:a:b::1.2.3.4',
      '2001:db8:a:b::1%eth0',
    ]) {
      assert.equal(key(spelling), '2001:db8:a:b::/64', spelling);
    }
    assert.equal(key('::1'), '0:0:0:0::/64');
    for (const notAnAddress of ['', 'example.com', '1.2.3', '2001:db8::g', '1.2.3.4:80'])
      assert.equal(parseAddress(notAnAddress), undefined);
  });

  it('matches addresses against IPv4 and IPv6 blocks, IPv4-mapped addresses as IPv4', () => {
    const trusted = networks('10.0.0.0/8', '192.0.2.1', '2001:db8:ff00::/40', '172.16.0.0/12');
    for (const inside of ['10.255.0.1', '::ffff:10.1.2.3', '192.0.2.1', '2001:db8:ff12::5', '172.31.255.255'])
      assert.ok(trusted.has(parseAddress(inside)!), inside);
    for (const outside of ['11.0.0.1', '192.0.2.2', '2001:db8:fe00::1', '172.32.0.0', '::a00:1'])
      assert.ok(!trusted.has(parseAddress(outside)!), outside);
    assert.ok(networks('0.0.0.0/0').has(parseAddress('198.51.100.1')!));
    assert.ok(!networks('0.0.0.0/0').has(parseAddress('2001:db8::1')!));
    assert.ok(networks('::/0').has(parseAddress('2001:db8::1')!));
  });
});
