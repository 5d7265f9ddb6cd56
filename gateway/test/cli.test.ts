import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { scrapeMetrics } from '../../scripts/test/metrics.js';
import { freePort } from '../../scripts/test/ports.js';
import type { GroupProcess } from '../../scripts/test/process.js';
import { logPrinter } from '../../scripts/dev/log-output.js';
import { WRITE_TOKEN, createFixtureDatabase, startGatewayCli } from './support/gateway.js';

/** What `npm start` runs (the root package.json's start script). */
const NPM_START = 'scripts/dev/start-embedded.ts';

/** How long `npm start` may take to stop cleanly before the test kills it (and fails). */
const SHUTDOWN_GRACE_MS = 30_000;

describe('catalog-gateway CLI', () => {
  it('refuses bad settings at start-up with a message naming each one', async () => {
    const gateway = startGatewayCli([], { PORT: 'eighty', CACHE_TTL_SECONDS: '-1', DATABASE_URL: 'not a url' });
    assert.equal(await gateway.exited, 2);
    assert.match(gateway.output, /invalid gateway configuration/);
    for (const variable of ['PORT', 'CACHE_TTL_SECONDS', 'DATABASE_URL']) assert.match(gateway.output, new RegExp(`${variable}:`));
  });

  it('refuses a cache budget over half of the V8 heap, which holds the cached bodies', async () => {
    // What a 256Mi container gives Node: its heap is sized from the limit, as --max-old-space-size does here.
    const small = { NODE_OPTIONS: '--max-old-space-size=128', DATABASE_URL: 'postgres://catalog@127.0.0.1:1/catalog' };
    const refused = startGatewayCli([], small);
    assert.equal(await refused.exited, 2);
    assert.match(refused.output, /CACHE_MAX_BYTES: 192 MiB is more than half of this process's V8 heap limit \(\d+ MiB/);
    // A budget that fits, or no cache at all, passes the check: the gateway starts (and waits for its database).
    const fitting: Record<string, string>[] = [{ CACHE_MAX_BYTES: String(32 * 1024 ** 2) }, { CACHE_TTL_SECONDS: '0' }];
    for (const fits of fitting) {
      const started = startGatewayCli([], { ...small, ...fits, PORT: String(await freePort()), LOG_LEVEL: 'info' });
      await started.waitForOutput('catalog-gateway ready');
      assert.equal(await started.stop(SHUTDOWN_GRACE_MS), 0);
    }
  });

  it("prints the metrics listener's URL in its ready line, with the port it got", async () => {
    const port = await freePort();
    const gateway = startGatewayCli([], {
      DATABASE_URL: await createFixtureDatabase(),
      PORT: String(port),
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    });
    try {
      await gateway.waitForOutput('catalog-gateway ready');
      const ready = JSON.parse(gateway.output.split('\n').find((line) => line.includes('"catalog-gateway ready"'))!);
      assert.equal(ready.graphql, `http://127.0.0.1:${port}/graphql`);
      assert.match(ready.metrics, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      assert.notEqual(new URL(ready.metrics).port, '0');
      assert.match(await scrapeMetrics(ready.metrics), /^catalog_db_pool_clients\{target="primary",state="total"\}/m);
    } finally {
      assert.equal(await gateway.stop(SHUTDOWN_GRACE_MS), 0);
    }
  });

  it('asks for DATABASE_URL or `npm start` when DATABASE_URL is not given', async () => {
    const gateway = startGatewayCli([], {});
    assert.equal(await gateway.exited, 2);
    assert.match(gateway.output, /DATABASE_URL is not set: set it, or run `npm start`/);
  });

  it(
    'npm start starts its own Postgres with a sample catalog, serves it, and reuses it on the next start',
    { timeout: 240_000 },
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'gateway-embedded-'));
      // Stopped whatever happens: a failed assertion must not leave `npm start` (and its Postgres) running.
      const started: GroupProcess[] = [];
      try {
        const [port, metricsPort] = [await freePort(), await freePort()];
        const env = { EMBEDDED_DATA_DIR: dataDir, PORT: String(port), METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info' };
        const first = startGatewayCli([], env, NPM_START);
        started.push(first);
        await first.waitForOutput('catalog-gateway ready');
        assert.match(first.output, /first start: generating and loading a sample catalog/);
        assert.match(first.output, new RegExp(`GraphQL  http://127.0.0.1:${port}/graphql`));
        assert.match(first.output, new RegExp(`Metrics  http://127.0.0.1:${metricsPort}/metrics\n`));
        // Not a terminal: the log lines stay JSON.
        assert.match(first.output, /^\{"level":30,.*"msg":"catalog-gateway ready"\}$/m);
        assert.match(await scrapeMetrics(`http://127.0.0.1:${metricsPort}/metrics`), /^# TYPE catalog_http_requests_total counter$/m);
        const base = `http://127.0.0.1:${port}`;
        assert.equal((await fetch(`${base}/metrics`)).status, 404);
        const product = await (await fetch(`${base}/products/1`)).json();
        assert.equal(product.id, 1);
        const list = (await (await fetch(`${base}/products?page=2000&count=5`)).json()) as unknown[];
        assert.equal(list.length, 5, 'the sample has 10k products');
        const page = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ product(id: 1) { name styles { id } } }' }),
        });
        assert.equal((await page.json()).data.product.name, product.name);
        // The gateway drains, then the embedded Postgres shuts down: seconds on a busy machine.
        assert.equal(await first.stop(SHUTDOWN_GRACE_MS), 0);

        const second = startGatewayCli([], env, NPM_START);
        started.push(second);
        await second.waitForOutput('catalog-gateway ready');
        assert.doesNotMatch(second.output, /first start/);
        assert.deepEqual(await (await fetch(`${base}/products/1`)).json(), product);
        assert.equal(await second.stop(SHUTDOWN_GRACE_MS), 0);
      } finally {
        await Promise.all(started.map((gateway) => gateway.stop(SHUTDOWN_GRACE_MS)));
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('on SIGTERM drains: new requests are served and told to hang up, the request in flight finishes, then exits 0', async () => {
    const port = await freePort();
    const gateway = startGatewayCli([], {
      DATABASE_URL: await createFixtureDatabase(),
      PORT: String(port),
      WRITE_TOKEN,
      LOG_LEVEL: 'debug',
    });
    await gateway.waitForOutput('catalog-gateway ready');

    // A write whose body is only half sent when the signal arrives.
    const body = JSON.stringify({ name: 'Sent across a shutdown' });
    const inFlight = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/products',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${WRITE_TOKEN}` },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      inFlight.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      inFlight.on('error', reject);
    });
    inFlight.write(body.slice(0, 10));
    await gateway.waitForOutput('"msg":"incoming request"');

    gateway.signal('SIGTERM');
    await gateway.waitForOutput('shutting down: draining in-flight requests');
    // A client the load balancer still sends here (endpoints lag behind) is served, not refused.
    const straggler = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(straggler.status, 200);
    assert.equal(straggler.headers.get('connection'), 'close');

    inFlight.end(body.slice(10));
    const { status, body: text } = await response;
    assert.equal(status, 201, text);
    assert.equal(JSON.parse(text).name, 'Sent across a shutdown');
    assert.equal(await gateway.exited, 0);
    assert.match(gateway.output, /shut down cleanly/);
  });
});

describe("npm start's log lines", () => {
  const line = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    pid: 7,
    hostname: 'vm',
    graphql: 'http://127.0.0.1:4000/graphql',
    msg: 'catalog-gateway ready',
  });
  const colors = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
  const print = (terminal: boolean, text: string) => {
    const printed: string[] = [];
    logPrinter(terminal, (chunk) => printed.push(chunk))(text);
    return printed.join('').replace(colors, '');
  };

  it('are readable on a terminal: time, level and message, then the fields', () => {
    assert.match(
      print(true, line),
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: catalog-gateway ready\n {4}graphql: "http:\/\/127\.0\.0\.1:4000\/graphql"\n$/,
    );
  });

  it('stay the JSON lines the gateway writes anywhere else', () => {
    assert.equal(print(false, line), `${line}\n`);
  });

  it('let text that is not JSON through unchanged', () => {
    assert.equal(print(true, 'plain text'), 'plain text\n');
  });
});
