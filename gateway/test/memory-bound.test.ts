import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ENTRY_OVERHEAD_BYTES } from '../src/cache/memory-store.js';
import { countStatements, createFixtureDatabase, startGateway } from './support/gateway.js';

const FIXTURE_IDS = [1, 2, 3, 5];
/** Styles first (the biggest bodies), products last, so the newest responses are small. */
const URLS = [...FIXTURE_IDS.map((id) => `/products/${id}/styles`), ...FIXTURE_IDS.map((id) => `/products/${id}`)];

describe('in-process cache bounded by bytes (CACHE_MAX_BYTES), whatever CACHE_MAX_ENTRIES allows', () => {
  let databaseUrl: string;
  const gateways: FastifyInstance[] = [];
  before(async () => {
    databaseUrl = await createFixtureDatabase();
  });
  after(() => Promise.all(gateways.map((gateway) => gateway.close())));

  /** An in-process-only gateway (no Redis) with room for 100,000 entries but only `maxBytes` bytes. */
  async function gatewayWithBudget(maxBytes: number): Promise<FastifyInstance> {
    const gateway = await startGateway(databaseUrl, { CACHE_MAX_ENTRIES: '100000', CACHE_MAX_BYTES: String(maxBytes) });
    gateways.push(gateway);
    return gateway;
  }

  const statementsFor = (gateway: FastifyInstance, url: string) =>
    countStatements(gateway, async () => assert.equal((await gateway.inject({ method: 'GET', url })).statusCode, 200));

  it('keeps every response when the budget holds them all', async () => {
    const gateway = await gatewayWithBudget(1024 * 1024);
    for (const url of URLS) await statementsFor(gateway, url);
    for (const url of URLS) assert.deepEqual(await statementsFor(gateway, url), [], `${url} should be cached`);
  });

  it('once its bytes fill the budget, admits a response asked for again and again in place of the least recently used', async () => {
    const gateway = await gatewayWithBudget(4 * 1024);
    for (const url of URLS) assert.notDeepEqual(await statementsFor(gateway, url), [], `${url} is a first read`);
    // The newest was asked for once, no more than what it would push out: TinyLFU turned it away.
    const newest = URLS.at(-1)!;
    assert.notDeepEqual(await statementsFor(gateway, newest), [], `${newest}, asked for once, should not displace a cached response`);
    let reads = 1;
    while ((await statementsFor(gateway, newest)).length > 0) {
      reads += 1;
      assert.ok(reads < 5, `${newest} still not cached after ${reads} reads`);
    }
    assert.notDeepEqual(await statementsFor(gateway, URLS[0]!), [], `${URLS[0]}, the least recently used, should be evicted for it`);
  });

  it('serves a response bigger than the whole budget without caching it', async () => {
    const budget = 1024; // the least CACHE_MAX_BYTES allowed
    const gateway = await gatewayWithBudget(budget);
    const url = '/products/1/styles';
    const first = await gateway.inject({ method: 'GET', url });
    const statements = await countStatements(gateway, async () => {
      const again = await gateway.inject({ method: 'GET', url });
      assert.equal(again.body, first.body);
    });
    // An entry counts its body, its key and the per-entry overhead.
    assert.ok(first.body.length + url.length + ENTRY_OVERHEAD_BYTES > budget, `fixture styles body is ${first.body.length} bytes`);
    assert.notDeepEqual(statements, []);
  });
});
