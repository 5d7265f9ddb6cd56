import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CACHE_LOOKUPS, type CacheHitLabels } from '../src/metrics/cache-hit-recorder.js';
import { createMetrics } from '../src/metrics/metrics.js';

const styles: CacheHitLabels = { method: 'GET', route: '/products/:product_id/styles', status_code: '200' };
const revalidated: CacheHitLabels = { method: 'GET', route: '/products/:product_id', status_code: '304' };

describe('cache hit recorder', () => {
  it('adds up every hit and lookup recorded since the last scrape, each request observed with its own duration', async () => {
    const metrics = createMetrics();
    const recorder = metrics.cacheHitRecorder;
    for (const seconds of [0.0005, 0.002, 0.3]) recorder.record(styles, seconds, true);
    recorder.record(revalidated, 0.004, false);
    recorder.countLookup(CACHE_LOOKUPS.memory.miss);
    recorder.countLookup(CACHE_LOOKUPS.memory.miss);
    recorder.countLookup(CACHE_LOOKUPS.redis.hit);

    const text = await metrics.registry.metrics();
    const value = (series: string) => Number(text.match(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm'))?.[1]);
    assert.equal(value('catalog_http_requests_total{method="GET",route="/products/:product_id/styles",status_code="200"}'), 3);
    assert.equal(value('catalog_http_requests_total{method="GET",route="/products/:product_id",status_code="304"}'), 1);
    const stylesDuration =
      'catalog_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/products/:product_id/styles",status_code="200"}';
    assert.equal(value(stylesDuration), 1, 'each duration in its own bucket');
    assert.equal(
      value('catalog_http_request_duration_seconds_count{method="GET",route="/products/:product_id/styles",status_code="200"}'),
      3,
    );
    assert.equal(value('catalog_cache_lookups_total{backend="memory",result="hit"}'), 3, 'hits answered from memory are lookups too');
    assert.equal(value('catalog_cache_lookups_total{backend="memory",result="miss"}'), 2);
    assert.equal(value('catalog_cache_lookups_total{backend="redis",result="hit"}'), 1);

    recorder.countLookup(CACHE_LOOKUPS.memory.miss);
    const later = await metrics.registry.metrics();
    assert.match(
      later,
      /catalog_cache_lookups_total\{backend="memory",result="miss"\} 3\n/,
      'counted once: the first scrape took what it folded in',
    );
  });
});
