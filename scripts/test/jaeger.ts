// A real Jaeger v2 for tests (the pinned build of scripts/tools/install-jaeger.sh): OTLP over HTTP
// in, the query API out, in-memory storage, every listener on 127.0.0.1 at a free port.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from '../../charts/test/support/tools.js';
import { freePort } from './ports.js';
import { startServer } from './process.js';
import { answersOk, waitFor } from './wait.js';

/** A span as Jaeger's query API returns it (`GET /api/traces/<id>`). */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: 'CHILD_OF' | 'FOLLOWS_FROM'; traceID: string; spanID: string }[];
  startTime: number;
  duration: number;
  tags: { key: string; type: string; value: string | number | boolean }[];
  processID: string;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  /** Each process's resource: its `service.name`, and every other attribute as a tag. */
  processes: Record<string, { serviceName: string; tags?: { key: string; type: string; value: string | number | boolean }[] }>;
}

/** The collector's tail_sampling processor (a policy list as its config takes it), when a test wants one. */
export interface TailSampling {
  decisionWait: string;
  policies: Record<string, unknown>[];
}

export interface TestJaeger {
  /** Base URL of the OTLP/HTTP receiver: what OTEL_EXPORTER_OTLP_ENDPOINT names. */
  otlpEndpoint: string;
  /** Base URL of the query API (and UI). */
  queryUrl: string;
  /** The trace, or undefined while Jaeger does not have it. */
  trace(traceId: string): Promise<JaegerTrace | undefined>;
  /** The services Jaeger has received spans from. */
  services(): Promise<string[]>;
  /** Waits until Jaeger has the trace and `complete` holds for it (its spans arrive in batches). */
  waitForTrace(traceId: string, complete?: (trace: JaegerTrace) => boolean): Promise<JaegerTrace>;
  stop(): Promise<void>;
}

export async function startJaeger(options: { tailSampling?: TailSampling } = {}): Promise<TestJaeger> {
  const jaeger = requireTool('jaeger');
  const dir = await mkdtemp(join(tmpdir(), 'catalog-jaeger-'));
  const [otlpPort, queryPort, queryGrpcPort] = [await freePort(), await freePort(), await freePort()];
  const { tailSampling } = options;
  const config = {
    service: {
      extensions: ['jaeger_storage', 'jaeger_query'],
      pipelines: {
        traces: {
          receivers: ['otlp'],
          processors: tailSampling ? ['tail_sampling'] : [],
          exporters: ['jaeger_storage_exporter'],
        },
      },
      // No metrics endpoint of its own (it would listen on every interface at 8888).
      telemetry: { metrics: { level: 'none' }, logs: { level: 'warn' } },
    },
    extensions: {
      jaeger_storage: { backends: { memstore: { memory: { max_traces: 100_000 } } } },
      jaeger_query: {
        storage: { traces: 'memstore' },
        http: { endpoint: `127.0.0.1:${queryPort}` },
        grpc: { endpoint: `127.0.0.1:${queryGrpcPort}` },
      },
    },
    receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${otlpPort}` } } } },
    processors: tailSampling ? { tail_sampling: { decision_wait: tailSampling.decisionWait, policies: tailSampling.policies } } : {},
    exporters: { jaeger_storage_exporter: { trace_storage: 'memstore' } },
  };
  const configFile = join(dir, 'jaeger.yaml');
  await writeFile(configFile, JSON.stringify(config)); // JSON is YAML
  const queryUrl = `http://127.0.0.1:${queryPort}`;
  const server = await startServer('Jaeger', jaeger, [`--config=${configFile}`], {
    isReady: () => answersOk(`${queryUrl}/api/services`),
    timeoutMs: 30_000,
  }).catch(async (error: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw error;
  });

  const trace = async (traceId: string): Promise<JaegerTrace | undefined> => {
    const response = await fetch(`${queryUrl}/api/traces/${traceId}`);
    if (response.status === 404) {
      await response.arrayBuffer();
      return undefined;
    }
    const body = (await response.json()) as { data?: JaegerTrace[]; errors?: { msg: string }[] };
    if (!response.ok) throw new Error(`Jaeger /api/traces/${traceId}: ${response.status} ${JSON.stringify(body.errors)}`);
    return body.data?.[0];
  };
  return {
    otlpEndpoint: `http://127.0.0.1:${otlpPort}`,
    queryUrl,
    trace,
    async services() {
      const response = await fetch(`${queryUrl}/api/services`);
      const body = (await response.json()) as { data: string[] | null };
      if (!response.ok) throw new Error(`Jaeger /api/services: ${response.status}`);
      return body.data ?? [];
    },
    waitForTrace: (traceId, complete = () => true) =>
      waitFor(
        `Jaeger to hold trace ${traceId}`,
        async () => {
          const found = await trace(traceId);
          return found && complete(found) ? found : undefined;
        },
        30_000,
        250,
      ),
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A span's tag value. */
export const tagOf = (span: JaegerSpan, key: string): string | number | boolean | undefined =>
  span.tags.find((tag) => tag.key === key)?.value;

/**
 * The span's parent in its trace, if any: its first reference, as Jaeger's UI draws the tree (a
 * parent that is also linked, as a DataLoader batch's first load is, comes as FOLLOWS_FROM).
 */
export function parentOf(trace: JaegerTrace, span: JaegerSpan): JaegerSpan | undefined {
  const reference = span.references[0];
  return reference && trace.spans.find((candidate) => candidate.spanID === reference.spanID);
}

/** The trace's spans named `name` (or starting with it, for `prefix*`). */
export function spansNamed(trace: JaegerTrace, name: string): JaegerSpan[] {
  const matches = name.endsWith('*')
    ? (span: JaegerSpan) => span.operationName.startsWith(name.slice(0, -1))
    : (span: JaegerSpan) => span.operationName === name;
  return trace.spans.filter(matches);
}
