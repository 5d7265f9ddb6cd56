import assert from 'node:assert/strict';
import { test } from 'node:test';
// The k6 helpers are plain ES modules without k6 imports, so node runs them as k6 does.
import { readConfig } from '../lib/config.js';
import { createVisitPlanner, DEEP_PAGE_SHARE, VISIT_MIX } from '../lib/route-mix.js';
import { scatterRanks, zipfSampler } from '../lib/zipf.js';

// Math.random draws: with 100,000 samples every tolerance below is over six standard deviations.
const SAMPLES = 100_000;

test('zipf ranks stay within 1..n and the most popular ranks dominate', () => {
  const n = 10_000;
  const sample = zipfSampler(n, 1.1);
  const counts = new Map<number, number>();
  for (let i = 0; i < SAMPLES; i += 1) {
    const rank = sample();
    assert.ok(Number.isInteger(rank) && rank >= 1 && rank <= n, `rank ${rank} out of range`);
    counts.set(rank, (counts.get(rank) ?? 0) + 1);
  }
  const top10 = [...Array(10).keys()].reduce((sum, i) => sum + (counts.get(i + 1) ?? 0), 0);
  // Under a uniform pick the top 10 of 10,000 would get 0.1 %; a Zipf(1.1) gives them about half.
  assert.ok(top10 / SAMPLES > 0.3, `top 10 ranks got ${top10 / SAMPLES}`);
  assert.ok((counts.get(1) ?? 0) > (counts.get(2) ?? 0) && (counts.get(2) ?? 0) > (counts.get(10) ?? 0));
});

test('zipf ranks follow P(rank) ∝ 1 / rank^s exactly, not a continuous approximation', () => {
  for (const exponent of [1, 1.1, 2]) {
    const n = 10;
    const sample = zipfSampler(n, exponent);
    const counts = Array<number>(n).fill(0);
    for (let i = 0; i < SAMPLES; i += 1) counts[sample() - 1]! += 1;
    const weights = counts.map((_, index) => 1 / (index + 1) ** exponent);
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    weights.forEach((weight, index) => {
      const share = counts[index]! / SAMPLES;
      assert.ok(Math.abs(share - weight / total) < 0.01, `s=${exponent}: rank ${index + 1} got ${share}, expected ${weight / total}`);
    });
  }
});

test('zipf with exponent 0 is uniform, and exponent 1 works too', () => {
  const uniform = zipfSampler(4, 0);
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < SAMPLES; i += 1) counts[uniform() - 1]! += 1;
  for (const count of counts) assert.ok(Math.abs(count / SAMPLES - 0.25) < 0.01, `uniform share ${count / SAMPLES}`);
  const harmonic = zipfSampler(100, 1);
  for (let i = 0; i < 1000; i += 1) assert.ok(harmonic() <= 100);
});

test('scattered ranks are a permutation of the ids', () => {
  for (const n of [1, 2, 10, 1000, 1024]) {
    const id = scatterRanks(n);
    const ids = new Set(Array.from({ length: n }, (_, i) => id(i + 1)));
    assert.equal(ids.size, n);
    assert.ok([...ids].every((value) => value >= 1 && value <= n));
  }
});

test('a visit follows the route mix and sends 10 % of list requests to the last 10 % of pages', () => {
  const config = readConfig({ PRODUCT_COUNT: '1000', PAGE_SIZE: '5' });
  const planner = createVisitPlanner(config);
  assert.equal(planner.pages, 200);
  assert.equal(planner.deepPagesFrom, 181);
  const routes = new Map<string, number>();
  let lists = 0;
  let deep = 0;
  for (let i = 0; i < SAMPLES; i += 1) {
    const visit = planner.next();
    routes.set(visit.route, (routes.get(visit.route) ?? 0) + 1);
    if (visit.route === 'list') {
      const page = Number(new URLSearchParams(visit.path.split('?')[1]).get('page'));
      assert.ok(page >= 1 && page <= planner.pages);
      lists += 1;
      if (page >= planner.deepPagesFrom) deep += 1;
    } else {
      const id = Number(visit.path.split('/')[2]);
      assert.ok(id >= 1 && id <= 1000, visit.path);
      assert.equal(visit.path.replace(/\/\d+/, '/:product_id'), visit.name);
    }
  }
  for (const { route, weight } of VISIT_MIX) {
    assert.ok(Math.abs((routes.get(route) ?? 0) / SAMPLES - weight) < 0.01, `${route} share off`);
  }
  assert.ok(Math.abs(deep / lists - DEEP_PAGE_SHARE) < 0.015, `deep page share ${deep / lists}`);
});

test('settings are validated with messages naming the variable', () => {
  assert.throws(() => readConfig({ RATE: 'fast' }), /RATE must be a number >= 1, got "fast"/);
  assert.throws(() => readConfig({ PRODUCT_COUNT: '2.5' }), /PRODUCT_COUNT must be an integer/);
  assert.throws(() => readConfig({ DURATION: '10 minutes' }), /DURATION must be a k6 duration/);
  assert.throws(() => readConfig({ BASE_URL: 'localhost:4000' }), /BASE_URL must be an http\(s\) URL/);
  const defaults = readConfig({});
  assert.equal(defaults.baseUrl, 'http://127.0.0.1:4000');
  assert.equal(defaults.p95Ms, 50);
  assert.equal(defaults.maxErrorRate, 0.01);
});
