import { register } from 'node:module';
import { trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { DataloaderInstrumentation } from '@opentelemetry/instrumentation-dataloader';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import type { Config } from '../config.js';
import { tracingResource } from './resource.js';
import { EdgeDecidedSampler, EdgeSampling } from './sampling.js';
import { useTracer } from './tracing.js';
import { WorkerSpanExporter } from './worker-span-exporter.js';

/** Settings tracing starts from: tracing is on when the OTLP endpoint is set. */
export type TracingConfig = Pick<
  Config,
  'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME' | 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG' | 'OTEL_PROPAGATORS'
>;

const PROPAGATORS = { tracecontext: () => new W3CTraceContextPropagator(), baggage: () => new W3CBaggagePropagator() };

/** A Postgres statement's span, named by what it does (the instrumentation's default is its prepared-statement name). */
const SQL_OPERATION = /^\s*(\w+)/;

/**
 * Starts tracing: the OpenTelemetry SDK (W3C trace context, spans batched to the OTLP/HTTP
 * endpoint from a worker thread) and the pg, ioredis, graphql and dataloader instrumentations.
 * Must run before the gateway's modules are imported (cli.ts imports them afterwards): the
 * instrumentations patch those libraries as they load, through require hooks for CommonJS and,
 * for the gateway's ES module imports, import-in-the-middle's loader hook, registered here for
 * those four packages only. Resolves to a function that sends the spans still buffered and stops.
 */
export async function startTracing(config: TracingConfig & { OTEL_EXPORTER_OTLP_ENDPOINT: string }): Promise<() => Promise<void>> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const provider = new NodeTracerProvider({
    resource: tracingResource(config.OTEL_SERVICE_NAME),
    sampler: new EdgeDecidedSampler(),
    spanProcessors: [
      new BatchSpanProcessor(new WorkerSpanExporter({ url: `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` })),
    ],
  });
  // The global tracer provider, AsyncLocalStorage context and the propagators OTEL_PROPAGATORS names.
  const contextManager = new AsyncLocalStorageContextManager();
  const propagators = config.OTEL_PROPAGATORS.map((name) => PROPAGATORS[name]());
  provider.register({ contextManager, propagator: new CompositePropagator({ propagators }) });
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Spans only inside a traced request: an untraced one (and background work) costs one context lookup.
      new PgInstrumentation({
        requireParentSpan: true,
        requestHook: (span, { query }) => span.updateName(`pg.query:${SQL_OPERATION.exec(query.text)?.[1]?.toUpperCase() ?? 'SQL'}`),
      }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new DataloaderInstrumentation({ requireParentSpan: true }),
      // graphql-js parses and validates a document the first time the gateway sees it; graphql-jit
      // executes (telemetry/graphql-execution.ts), so there are no resolver spans to make.
      new GraphQLInstrumentation({ ignoreResolveSpans: true }),
    ],
  });
  await waitForAllMessagesAcknowledged();
  useTracer(trace.getTracer('catalog-gateway'), EdgeSampling.of(config), contextManager);
  return () => provider.shutdown();
}
