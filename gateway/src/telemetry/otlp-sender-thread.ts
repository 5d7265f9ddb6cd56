/**
 * The worker thread that sends serialized span batches to the OTLP/HTTP endpoint
 * (telemetry/worker-span-exporter.ts posts them). It uses the OpenTelemetry exporter's own
 * transport, so the standard OTEL_EXPORTER_OTLP_* headers, timeout and compression settings and
 * its retries apply unchanged; only the HTTP client runs here instead of on the request thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createOtlpHttpExportDelegate, convertLegacyHttpOptions } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ExportRequest, ExportSettled, SenderSettings } from './worker-span-exporter.js';

const { url } = workerData as SenderSettings;
const port = parentPort!;

const delegate = createOtlpHttpExportDelegate<ExportRequest, unknown>(
  convertLegacyHttpOptions({ url }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
  { serializeRequest: (request) => request.body, deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data) },
  'otlp_http_span_exporter',
  { name: 'span', countItems: (request) => request.spanCount },
  // The exporter's self-observability metrics stay off, as with the SDK's own exporter by default.
  undefined,
);

port.on('message', (request: ExportRequest) => {
  delegate.export(request, ({ code, error }) => {
    const settled: ExportSettled = { id: request.id, code, error: error && (error.stack ?? String(error)) };
    port.postMessage(settled);
  });
});
