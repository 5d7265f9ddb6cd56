// Reads k6's raw JSON output (`--out json=FILE`, one JSON object per line, gzipped when FILE
// ends in .gz) into per-second series: requests, failed requests, dropped iterations (load k6
// was asked for but could not send), p95 / p50 duration and VUs.
// Streams the file, so a long soak's output never sits in memory whole.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

export interface SecondBucket {
  /** Seconds since the first sample. */
  second: number;
  requests: number;
  failed: number;
  dropped: number;
  p50Ms: number | null;
  p95Ms: number | null;
  /** Last VU count k6 reported at or before this second (a gauge). */
  vus: number | null;
}

interface RawPoint {
  type: string;
  metric: string;
  data: { time: string; value: number };
}

const TRACKED = new Set(['http_reqs', 'http_req_failed', 'http_req_duration', 'dropped_iterations', 'vus']);

/** Nearest-rank percentile of ascending-sorted values. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export async function readTimeline(rawJsonFile: string): Promise<SecondBucket[]> {
  const perSecond = new Map<number, { requests: number; failed: number; dropped: number; durations: number[]; vus: number | null }>();
  let start: number | undefined;
  const file = createReadStream(rawJsonFile);
  const input = rawJsonFile.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  const lines = createInterface({ input, crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.includes('"Point"')) continue;
    const point = JSON.parse(line) as RawPoint;
    if (point.type !== 'Point' || !TRACKED.has(point.metric)) continue;
    const time = Date.parse(point.data.time);
    start ??= time;
    const second = Math.max(0, Math.floor((time - start) / 1000));
    let bucket = perSecond.get(second);
    if (!bucket) {
      bucket = { requests: 0, failed: 0, dropped: 0, durations: [], vus: null };
      perSecond.set(second, bucket);
    }
    if (point.metric === 'http_reqs') bucket.requests += point.data.value;
    else if (point.metric === 'http_req_failed') bucket.failed += point.data.value;
    else if (point.metric === 'http_req_duration') bucket.durations.push(point.data.value);
    else if (point.metric === 'dropped_iterations') bucket.dropped += point.data.value;
    else bucket.vus = Math.max(bucket.vus ?? 0, point.data.value);
  }
  const last = Math.max(-1, ...perSecond.keys());
  const timeline: SecondBucket[] = [];
  let vus: number | null = null;
  // Every second of the run, empty ones included, so gaps show as zero traffic.
  for (let second = 0; second <= last; second += 1) {
    const bucket = perSecond.get(second);
    const sorted = (bucket?.durations ?? []).sort((a, b) => a - b);
    vus = bucket?.vus ?? vus;
    timeline.push({
      second,
      requests: bucket?.requests ?? 0,
      failed: bucket?.failed ?? 0,
      dropped: bucket?.dropped ?? 0,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      vus,
    });
  }
  return timeline;
}
