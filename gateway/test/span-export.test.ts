import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { WorkerSpanExporter } from '../src/telemetry/worker-span-exporter.js';
import { productPageBody } from '../../scripts/test/product-page.js';
import { startTracedGateway, traceIdOf, type TracedGateway } from './support/traced-gateway.js';

const productPage = (gateway: TracedGateway) =>
  fetch(`${gateway.base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: productPageBody('1') });

// Spans leave the gateway from a worker thread (telemetry/worker-span-exporter.ts): these are the
// promises a span exporter makes, kept across that thread boundary.
describe('span export from the sender thread', { timeout: 180_000 }, () => {
  it('sends the spans still buffered at shutdown before the process exits', async () => {
    // No scheduled batch in this test's lifetime: only the shutdown's flush sends the spans.
    const gateway = await startTracedGateway({ env: { OTEL_BSP_SCHEDULE_DELAY: '600000', SHUTDOWN_GRACE_MS: '4000' } });
    try {
      const response = await productPage(gateway);
      assert.equal(response.status, 200);
      const traceId = traceIdOf(response);
      assert.equal(await gateway.jaeger.trace(traceId), undefined, 'nothing is sent before the shutdown');

      assert.equal(await gateway.process.stop(10_000), 0, gateway.process.logTail());
      assert.match(gateway.process.output, /shut down cleanly/);
      const trace = await gateway.jaeger.waitForTrace(traceId, (candidate) =>
        candidate.spans.some((span) => span.operationName.startsWith('pg.query:')),
      );
      assert.ok(trace.spans.some((span) => span.operationName === 'POST /graphql'));
    } finally {
      await gateway.stop();
    }
  });

  it('keeps serving, and shuts down on time, when the trace backend is gone', async () => {
    const gateway = await startTracedGateway({ env: { OTEL_EXPORTER_OTLP_TIMEOUT: '2000', SHUTDOWN_GRACE_MS: '6000' } });
    try {
      const before = await productPage(gateway);
      await gateway.jaeger.waitForTrace(traceIdOf(before));

      await gateway.jaeger.stop();
      // Batches now fail (connection refused, retried until the export timeout) while requests go on.
      for (let request = 0; request < 20; request++) {
        const response = await productPage(gateway);
        assert.equal(response.status, 200);
        traceIdOf(response);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }

      // The last batch's retries end at the export timeout; the shutdown waits for them, then exits cleanly.
      assert.equal(await gateway.process.stop(10_000), 0, gateway.process.logTail());
      assert.match(gateway.process.output, /shut down cleanly/);
    } finally {
      await gateway.stop();
    }
  });

  it('fails the batches of a sender thread that dies, and starts another for the next batch', async () => {
    const started = new BasicTracerProvider().getTracer('span-export test').startSpan('a span');
    started.end();
    // The SDK's spans are ReadableSpans; the API types them by what callers may do with them.
    const span = started as unknown as ReadableSpan;
    // The exporter's transport rejects this URL as the thread starts: the thread ends with an error.
    const exporter = new WorkerSpanExporter({ url: 'not a url' });
    // A batch never answered would leave nothing to keep the process alive: this timer makes it a failure.
    const exported = () =>
      new Promise<ExportResult>((resolve, reject) => {
        const unanswered = setTimeout(() => reject(new Error('the exporter never answered the batch')), 10_000);
        exporter.export([span], (result) => {
          clearTimeout(unanswered);
          resolve(result);
        });
      });
    for (const attempt of ['first thread', 'second thread']) {
      const result = await exported();
      assert.equal(result.code, ExportResultCode.FAILED, attempt);
      assert.match(String(result.error), /Could not parse user-provided export URL: 'not a url'/, attempt);
    }
    await exporter.shutdown();
    assert.equal((await exported()).code, ExportResultCode.FAILED, 'no batch after the shutdown');
  });
});
