import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { bucketsSince, histogramBuckets, histogramQuantile, type HistogramBuckets } from '../../../scripts/test/metrics.js';
import { freePort } from '../../../scripts/test/ports.js';
import { startRedis, type RedisServer } from '../../../scripts/test/redis.js';
import { startVarnish, type VarnishServer } from '../../../scripts/test/varnish.js';
import { seededRandom } from '../../bench/random.js';
import { eventually, metricValue, WRITE_TOKEN } from '../support/gateway.js';
import { createCoherenceCatalog, currentSlogans } from '../coherence/catalog.js';
import { checkHistory, formatStaleRead, formatSummary, type StaleRead } from '../coherence/checker.js';
import { startGatewayProcess, type GatewayProcess } from '../coherence/gateway-process.js';
import { HistoryRecorder } from '../coherence/history.js';
import { runWorkload, type Endpoint } from '../coherence/workload.js';

/**
 * The promise at the edge (gateway/README.md, "Consistency", "Through a shared cache"): a real
 * Varnish with xkey, running the chart's sample VCL, in front of two gateway processes sharing
 * Postgres and Redis; writers by REST and GraphQL through the gateways and by SQL straight into
 * Postgres (reaching the gateways, and Varnish's purges, through change capture), readers through Varnish
 * and straight to the gateways. Every read is judged against the writes acknowledged before it
 * began: straight to a gateway the bound is 0; through Varnish it is the purge's latency while
 * purges go through, and s-maxage + stale-while-revalidate while Varnish refuses them (its ACL
 * swapped for one nobody matches, by varnishadm, as a misconfiguration would). `EDGE_SEED=<n>`
 * replays a run's choices. A SQL write counts as acknowledged at its commit plus the capture's
 * bound (sql-writer.ts), and the edge's bound comes on top of that.
 */
const SEED = Number(process.env.EDGE_SEED ?? randomInt(2 ** 31));
const PRODUCTS = 1_000;
const SHARED_MAX_AGE_S = 8;
const STALE_WHILE_REVALIDATE_S = 2;
/** What the README promises through a shared cache whose purges work, on a loaded test machine. */
const PURGE_BOUND_MS = 2_000;
/** While purges fail: a copy stored just before a write lives s-maxage, then is served once more in grace; plus a request's time. */
const FAILING_BOUND_MS = (SHARED_MAX_AGE_S + STALE_WHILE_REVALIDATE_S) * 1_000 + 1_000;
const RUN_MS = 25_000;
/** Varnish refuses purges this long in the second run: longer than a copy's whole life in it. */
const REFUSED_FROM_MS = 4_000;
const REFUSED_FOR_MS = 12_000;
const CLIENTS = { writers: 3, readers: 8 };
const SQL_WRITERS = 1;

interface Run {
  stale: StaleRead[];
  summary: ReturnType<typeof checkHistory>['summary'];
  describe: string;
}

describe('a real Varnish in front of two gateways: purged on every change', { timeout: 600_000 }, () => {
  let redis: RedisServer;
  let varnish: VarnishServer;
  let databaseUrl: string;
  let gateways: GatewayProcess[] = [];
  let purgeTarget: string;

  const sumOver = async (series: string) => {
    const texts = await Promise.all(gateways.map(async (gateway) => (await fetch(gateway.metricsUrl)).text()));
    return texts.reduce((sum, text) => sum + metricValue(text, series), 0);
  };
  const purges = (result: 'sent' | 'failed') => sumOver(`catalog_edge_purge_requests_total{target="${purgeTarget}",result="${result}"}`);

  before(async () => {
    const varnishPort = await freePort();
    purgeTarget = `varnish:127.0.0.1:${varnishPort}`;
    [redis, databaseUrl] = await Promise.all([startRedis(), createCoherenceCatalog(PRODUCTS)]);
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      WRITE_TOKEN,
      CACHE_TTL_SECONDS: '300',
      LOG_LEVEL: 'warn',
      HTTP_CACHE_MAX_AGE_SECONDS: '1',
      HTTP_CACHE_SHARED_MAX_AGE_SECONDS: String(SHARED_MAX_AGE_S),
      HTTP_CACHE_STALE_WHILE_REVALIDATE_SECONDS: String(STALE_WHILE_REVALIDATE_S),
      EDGE_PURGE_VARNISH_URLS: `http://127.0.0.1:${varnishPort}/`,
      EDGE_PURGE_TIMEOUT_MS: '1000',
    };
    gateways = await Promise.all(['gateway-a', 'gateway-b'].map((name) => startGatewayProcess(name, env)));
    varnish = await startVarnish(
      gateways.map((gateway) => ({ host: '127.0.0.1', port: Number(new URL(gateway.base).port) })),
      varnishPort,
    );
  });
  after(async () => {
    await Promise.allSettled(gateways.map((gateway) => gateway.stop()));
    await Promise.allSettled([varnish?.stop(), redis?.stop()]);
  });

  /** Clients for RUN_MS, `during` meanwhile; the history judged. */
  async function run(name: string, seed: number, during: () => Promise<void> = async () => {}): Promise<Run> {
    const recorder = new HistoryRecorder();
    const initial = await currentSlogans(databaseUrl);
    const through: Endpoint = { name: 'varnish', base: varnish.url };
    const stop = new AbortController();
    const clients = runWorkload(
      {
        ...CLIENTS,
        sql: { databaseUrl, writers: SQL_WRITERS },
        gateways,
        readVia: [through],
        products: PRODUCTS,
        writeToken: WRITE_TOKEN,
        run: name,
        random: seededRandom(seed),
        recorder,
      },
      stop.signal,
    );
    await Promise.all([during(), sleep(RUN_MS)]);
    stop.abort();
    await clients;
    const report = checkHistory(initial, recorder.operations);
    const worst = [...report.stale].sort((a, b) => b.lagMs - a.lagMs).slice(0, 5);
    const describe = [formatSummary(report.summary), ...worst.map((stale) => formatStaleRead(stale, recorder.origin))].join('\n  ');
    assert.equal(report.summary.impossible, 0, `reads returned values no write explains\n${describe}`);
    assert.ok(report.summary.constrainedObservations > 0, `no read came after an acknowledged write of what it read\n${describe}`);
    const straight = report.stale.filter((stale) => stale.read.gateway !== through.name);
    assert.equal(straight.length, 0, `reads straight from a gateway returned data older than an acknowledged write\n${describe}`);
    return { stale: report.stale, summary: report.summary, describe };
  }

  it(`purges through: 0 stale reads through Varnish later than ${PURGE_BOUND_MS} ms after the write's acknowledgement`, async () => {
    const [hitsBefore, sentBefore, failedBefore, latencyBefore] = [
      await varnish.counter('MAIN.cache_hit'),
      await purges('sent'),
      await purges('failed'),
      await latencyBuckets(),
    ];
    const { stale, describe } = await run(`edge seed ${SEED}`, SEED);
    const late = stale.filter((read) => read.lagMs > PURGE_BOUND_MS);
    const [hits, sent, failed] = [
      (await varnish.counter('MAIN.cache_hit')) - hitsBefore,
      (await purges('sent')) - sentBefore,
      (await purges('failed')) - failedBefore,
    ];
    const latency = await purgeLatency(latencyBefore);
    console.log(
      `edge seed ${SEED} (EDGE_SEED=${SEED} replays it): ${describe}\n  Varnish hits ${hits}, purges sent ${sent}, failed ${failed}; ` +
        `stale through Varnish ${stale.length} (within the bound), purge latency p50 ${latency.p50} ms, p99 ${latency.p99} ms`,
    );
    // A run in which Varnish answered nothing from its cache, or nothing was purged, could not have failed.
    assert.ok(hits > 0, 'Varnish answered no read from its cache');
    assert.ok(sent > 0, 'no purge reached Varnish');
    assert.equal(late.length, 0, `reads through Varnish stale beyond ${PURGE_BOUND_MS} ms\n${describe}`);
  });

  it(`purges refused for ${REFUSED_FOR_MS / 1_000} s: retried until taken, staleness within s-maxage + stale-while-revalidate`, async () => {
    const failedBefore = await purges('failed');
    const { stale, describe } = await run(`edge refused seed ${SEED}`, SEED + 1, async () => {
      await sleep(REFUSED_FROM_MS);
      await varnish.refusePurges();
      await sleep(REFUSED_FOR_MS);
      await varnish.acceptPurges();
    });
    const failed = (await purges('failed')) - failedBefore;
    const beyondPurgeBound = stale.filter((read) => read.lagMs > PURGE_BOUND_MS).length;
    console.log(
      `edge refused seed ${SEED + 1}: ${describe}\n  purges refused and retried ${failed}; stale through Varnish ${stale.length}, ` +
        `${beyondPurgeBound} of them beyond the purge bound (${PURGE_BOUND_MS} ms), bound while refused ${FAILING_BOUND_MS} ms`,
    );
    assert.ok(failed > 0, 'no purge was refused while Varnish refused them');
    const overBound = stale.filter((read) => read.lagMs > FAILING_BOUND_MS);
    assert.equal(overBound.length, 0, `reads through Varnish stale beyond s-maxage + stale-while-revalidate\n${describe}`);
    // Once Varnish takes purges again, what waited is sent: nothing is left in the queues.
    await eventually(
      'the purge queues drained',
      async () => (await sumOver(`catalog_edge_purge_queue_tags{target="${purgeTarget}"}`)) === 0,
      40_000,
    );
  });

  /** The purge latency histogram's cumulative buckets, summed over both gateways. */
  async function latencyBuckets(): Promise<HistogramBuckets> {
    const texts = await Promise.all(gateways.map(async (gateway) => (await fetch(gateway.metricsUrl)).text()));
    return histogramBuckets(texts, 'catalog_edge_purge_latency_seconds');
  }

  /** p50 and p99 in ms of the purges made since `before` was taken (the start-up's purges, sent before Varnish ran, left out). */
  async function purgeLatency(before: HistogramBuckets): Promise<{ p50: string; p99: string }> {
    const since = bucketsSince(before, await latencyBuckets());
    const quantile = (q: number) => {
      const seconds = histogramQuantile(since, q);
      return seconds === undefined ? 'n/a' : (seconds * 1_000).toFixed(1);
    };
    return { p50: quantile(0.5), p99: quantile(0.99) };
  }
});
