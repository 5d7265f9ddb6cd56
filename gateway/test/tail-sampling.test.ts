import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { TailSampling } from '../../scripts/test/jaeger.js';
import { startTracedGateway, traceIdOf, type TracedGateway } from './support/traced-gateway.js';

/** Requests slower than this are kept whatever their status (the collector's latency policy). */
const SLOW_MS = 200;
const DB_ACQUIRE_TIMEOUT_MS = 400;

/**
 * "Always keep errors and slow requests": the gateway sends every trace, and the collector's tail
 * sampling keeps those whose spans carry an error or that took longer than SLOW_MS, plus a ratio
 * of the rest (none here, so that what is kept is what the rules keep).
 */
const KEEP_ERRORS_AND_SLOW: TailSampling = {
  decisionWait: '1s',
  policies: [
    { name: 'errors', type: 'status_code', status_code: { status_codes: ['ERROR'] } },
    { name: 'slow', type: 'latency', latency: { threshold_ms: SLOW_MS } },
    { name: 'ratio', type: 'probabilistic', probabilistic: { sampling_percentage: 0 } },
  ],
};

/** A "database" that accepts connections and never answers: every statement waits for the pool's acquire timeout. */
async function startSilentDatabase(): Promise<{ url: string; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `postgres://catalog@127.0.0.1:${port}/catalog`, server, sockets };
}

describe('tail sampling in Jaeger keeps every error and slow request', { timeout: 180_000 }, () => {
  let gateway: TracedGateway;
  let database: Awaited<ReturnType<typeof startSilentDatabase>>;

  before(async () => {
    database = await startSilentDatabase();
    gateway = await startTracedGateway({
      tailSampling: KEEP_ERRORS_AND_SLOW,
      // One connection and no queue: while one statement waits, the next request is refused at once.
      env: { DATABASE_URL: database.url, DB_POOL_MAX: '1', DB_QUEUE_MAX: '0', DB_POOL_ACQUIRE_TIMEOUT_MS: String(DB_ACQUIRE_TIMEOUT_MS) },
    });
  });
  after(async () => {
    await gateway?.stop();
    for (const socket of database?.sockets ?? []) socket.destroy();
    database?.server.close();
  });

  it('keeps a slow failure and a fast failure, and drops a fast success', async () => {
    const fast = await fetch(`${gateway.base}/healthz`);
    assert.equal(fast.status, 200);
    await fast.arrayBuffer();

    const slowRequest = fetch(`${gateway.base}/products/1`);
    // The first request holds the only connection attempt; this one is refused at once (503, queue full).
    let refused: Response;
    do {
      refused = await fetch(`${gateway.base}/products/2`);
      await refused.arrayBuffer();
    } while (refused.status !== 503);
    const slow = await slowRequest;
    await slow.arrayBuffer();
    assert.equal(slow.status, 503);

    const slowTrace = await gateway.jaeger.waitForTrace(traceIdOf(slow));
    const refusedTrace = await gateway.jaeger.waitForTrace(traceIdOf(refused));
    const durationMs = (trace: typeof slowTrace) => Math.max(...trace.spans.map((span) => span.duration)) / 1_000;
    assert.ok(durationMs(slowTrace) >= DB_ACQUIRE_TIMEOUT_MS, `the slow request took ${durationMs(slowTrace)} ms`);
    assert.ok(refusedTrace.spans.some((span) => span.tags.some((tag) => tag.key === 'otel.status_code' && tag.value === 'ERROR')));
    // Decided in the same or an earlier round than those two: dropped.
    assert.equal(await gateway.jaeger.trace(traceIdOf(fast)), undefined);
  });
});
