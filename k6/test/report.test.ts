import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { inspectReport } from '../report/browser.js';
import { renderReport, type K6Summary } from '../report/html.js';
import { percentile, readTimeline } from '../report/timeline.js';

const SECONDS = 60;
const START = Date.parse('2026-01-01T12:00:00Z');
let dir: string;

/** k6 `--out json` lines for a run ramping 5 → 64 requests/s, slower and failing more at the top. */
function rawOutput(): string {
  const lines = [JSON.stringify({ type: 'Metric', metric: 'http_reqs', data: { name: 'http_reqs', type: 'counter' } })];
  const point = (metric: string, at: number, value: number) =>
    JSON.stringify({ type: 'Point', metric, data: { time: new Date(at).toISOString(), value, tags: { name: '/products' } } });
  for (let second = 0; second < SECONDS; second += 1) {
    const requests = 5 + second;
    // k6 samples VUs about once a second: leave some seconds without a sample.
    if (second % 7 !== 3) lines.push(point('vus', START + second * 1000, 2 + Math.floor(second / 10)));
    if (second >= 50) lines.push(point('dropped_iterations', START + second * 1000 + 500, 3));
    for (let i = 0; i < requests; i += 1) {
      const at = START + second * 1000 + Math.floor((i * 1000) / requests);
      lines.push(
        point('http_reqs', at, 1),
        point('http_req_duration', at, 2 + second / 4 + (i % 10)),
        point('http_req_failed', at, i === 0 && second > 40 ? 1 : 0),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-k6-report-'));
  await writeFile(join(dir, 'raw.json'), rawOutput());
  await writeFile(join(dir, 'raw.json.gz'), gzipSync(rawOutput()));
});
after(() => rm(dir, { recursive: true, force: true }));

test('the timeline buckets raw samples per second', async () => {
  const timeline = await readTimeline(join(dir, 'raw.json'));
  assert.equal(timeline.length, SECONDS);
  assert.deepEqual(
    timeline.slice(0, 2).map((b) => b.requests),
    [5, 6],
  );
  assert.equal(timeline[59]!.requests, 64);
  assert.equal(timeline[41]!.failed, 1);
  assert.equal(timeline[40]!.failed, 0);
  assert.equal(timeline[0]!.vus, 2);
  assert.equal(timeline[3]!.vus, 2, 'a second without a VU sample keeps the last count');
  assert.deepEqual([timeline[49]!.dropped, timeline[50]!.dropped], [0, 3]);
  // Second 0: durations 2..6 then 2..6 → nearest-rank p95 of 5 values is the largest.
  assert.equal(timeline[0]!.p95Ms, 6);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50), 5);
  // k6 gzips its output when the file name ends in .gz, as the runner asks.
  assert.deepEqual(await readTimeline(join(dir, 'raw.json.gz')), timeline);
  assert.equal(percentile([], 95), null);
});

test('the HTML report draws RPS, p95 and error plots in headless Chromium, offline', async () => {
  const summary: K6Summary = {
    metrics: {
      http_reqs: { values: { count: 2070, rate: 34.5 } },
      http_req_duration: { values: { med: 9.1, 'p(95)': 19.5, 'p(99)': 21.2 }, thresholds: { 'p(95)<50': { ok: true } } },
      http_req_failed: { values: { rate: 0.009 }, thresholds: { 'rate<0.01': { ok: true } } },
    },
  };
  const timeline = await readTimeline(join(dir, 'raw.json'));
  const reportFile = join(dir, 'report.html');
  const html = renderReport({
    scenario: 'mix',
    baseUrl: 'http://127.0.0.1:4000',
    startedAt: '2026-01-01T12:00:00Z',
    exitCode: 0,
    summary,
    timeline,
  });
  await writeFile(reportFile, html);
  // Self-contained: nothing to fetch, nothing to run.
  assert.doesNotMatch(html, /(src|href)=|<script|https?:\/\/(?!127\.0\.0\.1)/);

  const screenshot = join(dir, 'report.png');
  const { drawn, externalRequests } = await inspectReport(reportFile, screenshot);
  assert.deepEqual(externalRequests, []);
  const byName = new Map(drawn.map((series) => [`${series.chart}/${series.series}`, series]));
  for (const name of ['rps/requests/s', 'rps/VUs', 'latency/p95', 'errors/failed/s', 'rps/dropped/s']) {
    const series = byName.get(name);
    assert.ok(series, `no ${name} plot in ${JSON.stringify(drawn)}`);
    assert.equal(series.points, SECONDS, `${name} should have one vertex per second`);
    // A line across the ~820 px plot paints hundreds of pixels in its colour (fewer where a
    // later series is drawn over it).
    assert.ok(series.pixels > 150, `${name} painted only ${series.pixels} pixels`);
  }
  const png = await readFile(screenshot);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
});
