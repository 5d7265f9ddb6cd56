import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import pino from 'pino';
import { createEdgePurger, purgeTargetsOf } from '../../src/cdn/create-edge-purger.js';
import type { QueuedEdgePurger } from '../../src/cdn/edge-purger.js';
import { PurgeQueue } from '../../src/cdn/purge-queue.js';
import { VarnishPurgeTarget } from '../../src/cdn/targets/varnish.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createMetrics, edgePurgeReportInto, type Metrics } from '../../src/metrics/metrics.js';
import { eventually, metricValue } from '../support/gateway.js';
import { startCaptureServer, type CaptureServer } from './capture-server.js';

const FASTLY_TOKEN = 'fastly-secret-token-do-not-log';
const CLOUDFLARE_TOKEN = 'cloudflare-secret-token-do-not-log';
const tags = (count: number, prefix = 'product:') => Array.from({ length: count }, (_, index) => `${prefix}${index + 1}`);

/** A logger whose lines land in `lines`, every level. */
function capturingLogger() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'trace' }, { write: (line: string) => lines.push(line) }) };
}

const counted = async (metrics: Metrics, series: string) => metricValue(await metrics.registry.metrics(), series);

describe('purges by the documented HTTP APIs, against a local server', () => {
  let api: CaptureServer;
  let purger: QueuedEdgePurger | undefined;
  before(async () => {
    api = await startCaptureServer();
  });
  beforeEach(() => {
    api.requests.length = 0;
    api.answer(200);
  });
  after(async () => {
    await purger?.close();
    await api.close();
  });

  const start = (env: Record<string, string>) => {
    const metrics = createMetrics();
    const { lines, logger } = capturingLogger();
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const targets = purgeTargetsOf(config);
    const reports = edgePurgeReportInto(
      metrics,
      targets.map((target) => target.name),
    );
    purger = createEdgePurger(config, targets, reports, logger);
    return { metrics, lines, purger };
  };

  it('Fastly: POST /service/{id}/purge, surrogate_keys in batches of 256, the token in Fastly-Key', async () => {
    const { metrics } = start({
      EDGE_PURGE_FASTLY_SERVICE_ID: 'svc-1',
      EDGE_PURGE_FASTLY_API_TOKEN: FASTLY_TOKEN,
      EDGE_PURGE_FASTLY_API_URL: api.base,
    });
    purger!.purgeTags(tags(300));
    await eventually('both batches sent', async () => api.requests.length === 2);
    for (const request of api.requests) {
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/service/svc-1/purge');
      assert.equal(request.headers['fastly-key'], FASTLY_TOKEN);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['fastly-soft-purge'], undefined, 'hard purges');
    }
    const batches = api.requests.map((request) => (JSON.parse(request.body) as { surrogate_keys: string[] }).surrogate_keys);
    assert.deepEqual(
      batches.map((batch) => batch.length),
      [256, 44],
    );
    assert.deepEqual(batches.flat(), tags(300));
    assert.equal(await counted(metrics, 'catalog_edge_purge_requests_total{target="fastly",result="sent"}'), 2);
    await purger!.close();
  });

  it('Cloudflare: POST /zones/{zone}/purge_cache, tags in batches of 30, a Bearer token; a purge of everything is the catalog tag', async () => {
    start({
      EDGE_PURGE_CLOUDFLARE_ZONE_ID: 'zone-1',
      EDGE_PURGE_CLOUDFLARE_API_TOKEN: CLOUDFLARE_TOKEN,
      EDGE_PURGE_CLOUDFLARE_API_URL: api.base,
    });
    purger!.purgeTags(tags(70));
    await eventually('three batches sent', async () => api.requests.length === 3);
    purger!.purgeAll();
    await eventually('the purge of everything sent', async () => api.requests.length === 4);
    for (const request of api.requests) {
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/zones/zone-1/purge_cache');
      assert.equal(request.headers.authorization, `Bearer ${CLOUDFLARE_TOKEN}`);
    }
    const batches = api.requests.map((request) => (JSON.parse(request.body) as { tags: string[] }).tags);
    assert.deepEqual(
      batches.map((batch) => batch.length),
      [30, 30, 10, 1],
    );
    assert.deepEqual(batches.at(-1), ['catalog']);
    await purger!.close();
  });

  it('retries a refused purge with backoff until it is taken, counts each failure, and never logs a credential', async () => {
    const { metrics, lines } = start({
      EDGE_PURGE_FASTLY_SERVICE_ID: 'svc-1',
      EDGE_PURGE_FASTLY_API_TOKEN: FASTLY_TOKEN,
      EDGE_PURGE_FASTLY_API_URL: api.base,
      EDGE_PURGE_CLOUDFLARE_ZONE_ID: 'zone-1',
      EDGE_PURGE_CLOUDFLARE_API_TOKEN: CLOUDFLARE_TOKEN,
      EDGE_PURGE_CLOUDFLARE_API_URL: api.base,
    });
    api.answer(403, `{"success":false,"errors":[{"message":"bad token ${'x'.repeat(500)}"}]}`);
    purger!.purgeTags(['product:7', 'products:list']);
    // Every request a target sent counted as failed: none is in flight, each waits out its backoff
    // (400 ms after the third), so the tag asked again below cannot race a request under way.
    const sentTo = (target: 'fastly' | 'cloudflare') =>
      api.requests.filter((request) => request.url.startsWith(target === 'fastly' ? '/service/' : '/zones/')).length;
    await eventually(
      'each target refused three times, and waiting to retry',
      async () => {
        const text = await metrics.registry.metrics();
        return (['fastly', 'cloudflare'] as const).every((target) => {
          const failedSoFar = metricValue(text, `catalog_edge_purge_requests_total{target="${target}",result="failed"}`);
          return failedSoFar >= 3 && failedSoFar === sentTo(target);
        });
      },
      10_000,
    );
    // Asked again while it waits: coalesced, not sent twice.
    purger!.purgeTags(['product:7']);
    api.answer(200);
    const failed = await counted(metrics, 'catalog_edge_purge_requests_total{target="cloudflare",result="failed"}');
    await eventually(
      'taken',
      async () => (await counted(metrics, 'catalog_edge_purge_requests_total{target="cloudflare",result="sent"}')) === 1,
      5_000,
    );
    await eventually(
      'taken',
      async () => (await counted(metrics, 'catalog_edge_purge_requests_total{target="fastly",result="sent"}')) === 1,
      5_000,
    );
    assert.ok(failed >= 2, `failures counted: ${failed}`);
    const accepted = api.requests.filter((request) => request.url.startsWith('/zones/')).at(-1)!;
    assert.deepEqual((JSON.parse(accepted.body) as { tags: string[] }).tags, ['product:7', 'products:list']);
    assert.equal(await counted(metrics, 'catalog_edge_purge_queue_tags{target="cloudflare"}'), 0);
    const log = lines.join('');
    assert.match(log, /cloudflare answered 403: \{\\"success\\":false/, 'the failure is logged with what the API said');
    assert.ok(!log.includes('x'.repeat(201)), 'a long answer is cut short in the log');
    for (const secret of [FASTLY_TOKEN, CLOUDFLARE_TOKEN]) assert.ok(!log.includes(secret), `a credential was logged: ${log}`);
    await purger!.close();
  });

  it('Cloudflare answering 200 with "success": false is a failure', async () => {
    const { metrics } = start({
      EDGE_PURGE_CLOUDFLARE_ZONE_ID: 'zone-1',
      EDGE_PURGE_CLOUDFLARE_API_TOKEN: CLOUDFLARE_TOKEN,
      EDGE_PURGE_CLOUDFLARE_API_URL: api.base,
    });
    api.answer(200, '{"success":false,"errors":[{"code":1134,"message":"not entitled"}]}');
    purger!.purgeTags(['product:1']);
    await eventually(
      'counted failed',
      async () => (await counted(metrics, 'catalog_edge_purge_requests_total{target="cloudflare",result="failed"}')) >= 1,
    );
    api.answer(200);
    await eventually(
      'then sent',
      async () => (await counted(metrics, 'catalog_edge_purge_requests_total{target="cloudflare",result="sent"}')) === 1,
      5_000,
    );
    await purger!.close();
  });
});

describe('the purge queue', () => {
  it('turns into one purge of everything when more tags wait than it holds, and says so', async () => {
    const api = await startCaptureServer();
    const metrics = createMetrics();
    const { lines, logger } = capturingLogger();
    const reports = {
      depth: (target: string, count: number) => metrics.edgePurgeQueueTags.set({ target }, count),
      request: (target: string, result: 'sent' | 'failed') => metrics.edgePurgeRequests.inc({ target, result }),
      latency: (target: string, seconds: number) => metrics.edgePurgeLatency.observe({ target }, seconds),
      overflow: (target: string) => metrics.edgePurgeOverflows.inc({ target }),
    };
    const queue = new PurgeQueue(new VarnishPurgeTarget(api.base), { maxTags: 5, timeoutMs: 1_000, backoffMs: 20, reports, logger });
    try {
      api.answer(503);
      queue.add(['product:1']);
      await eventually('the first purge refused', async () => api.requests.length >= 1);
      queue.add(tags(10, 'product:1'));
      assert.equal(queue.depth, 1, 'one purge of everything waits, no tags');
      api.answer(200);
      await eventually(
        'the purge of everything taken',
        async () => api.requests.some((request) => request.headers['xkey-purge'] === 'catalog'),
        5_000,
      );
      await eventually('drained', async () => queue.depth === 0);
      assert.equal(
        metricValue(await metrics.registry.metrics(), `catalog_edge_purge_overflows_total{target="varnish:${new URL(api.base).host}"}`),
        1,
      );
      assert.match(lines.join(''), /purge queue full/);
      const afterOverflow = api.requests.slice(api.requests.findIndex((request) => request.headers['xkey-purge'] === 'catalog'));
      assert.equal(afterOverflow.length, 1, 'nothing but the purge of everything was sent after the overflow');
    } finally {
      await queue.close();
      await api.close();
    }
  });
});

describe('purge configuration', () => {
  /** The lines of the ConfigError `env` is refused with; none when it is accepted. */
  const refused = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.message.split('\n').slice(1);
    }
    return [];
  };

  it('refuses a Fastly service without its token, a Cloudflare token without its zone, and a Varnish URL that is not http', () => {
    const problems = (env: Record<string, string>) => {
      const lines = refused(env);
      assert.ok(lines.length > 0, 'accepted');
      return lines.join('\n');
    };
    assert.match(
      problems({ EDGE_PURGE_FASTLY_SERVICE_ID: 'svc' }),
      /EDGE_PURGE_FASTLY_API_TOKEN: required with EDGE_PURGE_FASTLY_SERVICE_ID/,
    );
    assert.match(
      problems({ EDGE_PURGE_CLOUDFLARE_API_TOKEN: 'token' }),
      /EDGE_PURGE_CLOUDFLARE_ZONE_ID: required with EDGE_PURGE_CLOUDFLARE_API_TOKEN/,
    );
    assert.match(
      problems({ EDGE_PURGE_VARNISH_URLS: 'http://varnish:6081, varnish:6081' }),
      /EDGE_PURGE_VARNISH_URLS: entry 2 is not an http:\/\/ or https:\/\/ URL/,
    );
    assert.match(
      problems({ EDGE_SURROGATE_KEY_HEADER: 'Surrogate Key' }),
      /EDGE_SURROGATE_KEY_HEADER: must be an HTTP header name, or none/,
    );
  });

  it('refuses a purge target whose shared cache would be sent no tags to purge by, and says every such problem at once', () => {
    const fastly = { EDGE_PURGE_FASTLY_SERVICE_ID: 'svc', EDGE_PURGE_FASTLY_API_TOKEN: 'fastly-token' };
    const cloudflare = { EDGE_PURGE_CLOUDFLARE_ZONE_ID: 'zone-1', EDGE_PURGE_CLOUDFLARE_API_TOKEN: 'cloudflare-token' };
    const varnish = { EDGE_PURGE_VARNISH_URLS: 'http://varnish:6081' };
    assert.deepEqual(refused({ ...fastly, ...cloudflare, ...varnish, EDGE_SURROGATE_KEY_HEADER: 'none', EDGE_CACHE_TAG_HEADER: 'none' }), [
      '  EDGE_SURROGATE_KEY_HEADER: none, but Fastly (EDGE_PURGE_FASTLY_SERVICE_ID) purges by it: it would purge nothing',
      '  EDGE_CACHE_TAG_HEADER: none, but Cloudflare (EDGE_PURGE_CLOUDFLARE_ZONE_ID) purges by it: it would purge nothing',
      '  EDGE_SURROGATE_KEY_HEADER: none and no EDGE_CACHE_TAG_HEADER, but Varnish (EDGE_PURGE_VARNISH_URLS) is purged by tags: it would purge nothing',
    ]);
    // Each shared cache with the header it reads, or Varnish with either: accepted.
    assert.deepEqual(refused({ ...fastly, ...cloudflare, ...varnish }), []);
    assert.deepEqual(refused({ ...fastly, EDGE_CACHE_TAG_HEADER: 'none' }), []);
    assert.deepEqual(refused({ ...cloudflare, EDGE_SURROGATE_KEY_HEADER: 'none' }), []);
    assert.deepEqual(refused({ ...varnish, EDGE_SURROGATE_KEY_HEADER: 'none', EDGE_CACHE_TAG_HEADER: 'xkey' }), []);
    assert.deepEqual(
      refused({ ...varnish, ...cloudflare, EDGE_SURROGATE_KEY_HEADER: 'none' }),
      [],
      'Cloudflare gets Cache-Tag, Varnish may read it',
    );
    // Without a purge target the headers are the operator's choice (their own CDN's purges).
    assert.deepEqual(refused({ EDGE_SURROGATE_KEY_HEADER: 'none', EDGE_CACHE_TAG_HEADER: 'none' }), []);
  });
});
