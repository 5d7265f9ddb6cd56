import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPrometheus, type TestPrometheus } from '../../dashboards/test/support/prometheus.js';
import { productPageBody } from '../../scripts/test/product-page.js';
import { waitFor } from '../../scripts/test/wait.js';
import { startTracedGateway, traceIdOf, type TracedGateway } from './support/traced-gateway.js';

const OPENMETRICS = 'application/openmetrics-text; version=1.0.0';
const HTTP_BUCKETS = 'catalog_http_request_duration_seconds_bucket';
const GRAPHQL_BUCKETS = 'catalog_graphql_operation_duration_seconds_bucket';

interface ExemplarLine {
  series: string;
  labels: string;
  traceId: string;
  spanId: string;
}

/** The exemplars of an OpenMetrics exposition: `series{labels} value # {trace_id="…",span_id="…"} value timestamp`. */
function exemplarsIn(exposition: string): ExemplarLine[] {
  return [...exposition.matchAll(/^(\w+)\{([^}]*)\} \S+ # \{trace_id="([0-9a-f]{32})",span_id="([0-9a-f]{16})"\} \S+ \S+$/gm)].map(
    ([, series, labels, traceId, spanId]) => ({ series: series!, labels: labels!, traceId: traceId!, spanId: spanId! }),
  );
}

describe('exemplars: latency histograms name the traces of their observations', { timeout: 240_000 }, () => {
  let gateway: TracedGateway;
  let prometheus: TestPrometheus | undefined;
  const scrape = async (accept?: string) => {
    const response = await fetch(gateway.metricsUrl, { headers: accept ? { accept } : {} });
    assert.equal(response.status, 200);
    return { contentType: response.headers.get('content-type'), body: await response.text() };
  };
  /** A product page (computed) and a REST read answered by the hot lane from memory: their trace ids. */
  const tracedRequests = async () => {
    const page = await fetch(`${gateway.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: productPageBody(5),
    });
    await page.arrayBuffer();
    await (await fetch(`${gateway.base}/products/5/styles`)).arrayBuffer();
    const hit = await fetch(`${gateway.base}/products/5/styles`);
    await hit.arrayBuffer();
    return { page: traceIdOf(page), hit: traceIdOf(hit) };
  };

  before(async () => {
    gateway = await startTracedGateway({ redisDatabase: 15 });
  });
  after(async () => {
    await prometheus?.stop();
    await gateway?.stop();
  });

  it('exposes OpenMetrics with exemplars to a scraper that asks for it, hits recorded in batches included', async () => {
    const traced = await tracedRequests();
    const { contentType, body } = await scrape(OPENMETRICS);
    assert.match(contentType ?? '', /^application\/openmetrics-text; version=1\.0\.0/);
    assert.ok(body.endsWith('# EOF\n'));
    const exemplars = exemplarsIn(body);
    const hit = exemplars.find((exemplar) => exemplar.traceId === traced.hit);
    assert.ok(hit, `the hot lane's hit is an exemplar: ${JSON.stringify(exemplars)}`);
    assert.equal(hit.series, HTTP_BUCKETS);
    assert.match(hit.labels, /route="\/products\/:product_id\/styles"/);
    const page = exemplars.filter((exemplar) => exemplar.traceId === traced.page).map((exemplar) => exemplar.series);
    assert.deepEqual(page.sort(), [GRAPHQL_BUCKETS, HTTP_BUCKETS]);
    // Every exemplar names a trace Jaeger has, with the span the exemplar names.
    for (const { traceId, spanId } of exemplars) {
      const trace = await gateway.jaeger.waitForTrace(traceId, (candidate) => candidate.spans.some((span) => span.spanID === spanId));
      assert.equal(trace.traceID, traceId);
    }
  });

  it('still answers the Prometheus text format otherwise, counters and all, after an OpenMetrics scrape', async () => {
    await scrape(OPENMETRICS);
    const { contentType, body } = await scrape();
    assert.match(contentType ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(body, /^catalog_http_requests_total\{/m);
    assert.doesNotMatch(body, / # \{/);
    assert.deepEqual(exemplarsIn(body), []);
  });

  it('real Prometheus with exemplar storage keeps them and returns them from query_exemplars', async () => {
    prometheus = await startPrometheus({ gateway: gateway.metricsTarget }, { features: ['exemplar-storage'] });
    await prometheus.waitForTarget('gateway');
    const started = Date.now() / 1000 - 60;
    const traced = await tracedRequests();
    type Exemplars = { seriesLabels: Record<string, string>; exemplars: { labels: Record<string, string> }[] }[];
    const stored = await waitFor(
      'Prometheus to store the new requests’ exemplars',
      async () => {
        const params = new URLSearchParams({
          query: `${HTTP_BUCKETS} or ${GRAPHQL_BUCKETS}`,
          start: String(started),
          end: String(Date.now() / 1000 + 1),
        });
        const series = await prometheus!.get<Exemplars>(`/api/v1/query_exemplars?${params}`);
        const traceIds = new Set(series.flatMap((entry) => entry.exemplars.map((exemplar) => exemplar.labels.trace_id)));
        return traceIds.has(traced.hit) && traceIds.has(traced.page) ? series : undefined;
      },
      30_000,
      500,
    );
    const names = new Set(stored.map((entry) => entry.seriesLabels.__name__));
    assert.deepEqual([...names].sort(), [GRAPHQL_BUCKETS, HTTP_BUCKETS]);
    for (const traceId of new Set(stored.flatMap((entry) => entry.exemplars.map((exemplar) => exemplar.labels.trace_id!)))) {
      await gateway.jaeger.waitForTrace(traceId);
    }
  });
});
