// The histogram helpers tests and benchmarks read gateways' latency histograms with (metrics.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketsSince, histogramBuckets, histogramCount, histogramQuantile } from './metrics.js';

/** Equal but for floating-point rounding. */
const near = (actual: number | undefined, expected: number) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `${actual} is not ${expected}`);

const scrape = (counts: readonly number[], target = 'varnish:a') =>
  [
    '# TYPE catalog_edge_purge_latency_seconds histogram',
    ...['0.01', '0.1', '1', '+Inf'].map(
      (le, index) => `catalog_edge_purge_latency_seconds_bucket{le="${le}",target="${target}"} ${counts[index]}`,
    ),
    `catalog_edge_purge_latency_seconds_count{target="${target}"} ${counts[3]}`,
  ].join('\n');

test('buckets are summed over texts and series, and filtered by label', () => {
  const buckets = histogramBuckets([scrape([1, 2, 3, 4]), scrape([10, 20, 30, 40], 'varnish:b')], 'catalog_edge_purge_latency_seconds');
  assert.deepEqual(
    [...buckets],
    [
      [0.01, 11],
      [0.1, 22],
      [1, 33],
      [Infinity, 44],
    ],
  );
  const one = histogramBuckets(
    [scrape([1, 2, 3, 4]), scrape([10, 20, 30, 40], 'varnish:b')],
    'catalog_edge_purge_latency_seconds',
    'target="varnish:b"',
  );
  assert.equal(histogramCount(one), 40);
  assert.equal(histogramCount(histogramBuckets(scrape([1, 2, 3, 4]), 'catalog_capture_delay_seconds')), 0);
});

test('quantiles interpolate within their bucket, as histogram_quantile does', () => {
  const buckets = histogramBuckets(scrape([0, 50, 100, 100]), 'catalog_edge_purge_latency_seconds');
  near(histogramQuantile(buckets, 0.5), 0.1);
  near(histogramQuantile(buckets, 0.25), 0.055);
  near(histogramQuantile(buckets, 0.99), 0.982);
  // Beyond the last finite bound: that bound.
  assert.equal(histogramQuantile(histogramBuckets(scrape([0, 0, 1, 2]), 'catalog_edge_purge_latency_seconds'), 0.99), 1);
  assert.equal(histogramQuantile(new Map(), 0.5), undefined);
});

test('what was observed between two scrapes', () => {
  const name = 'catalog_edge_purge_latency_seconds';
  const since = bucketsSince(histogramBuckets(scrape([1, 2, 3, 4]), name), histogramBuckets(scrape([1, 12, 13, 14]), name));
  assert.equal(histogramCount(since), 10);
  near(histogramQuantile(since, 0.5), 0.055);
});
