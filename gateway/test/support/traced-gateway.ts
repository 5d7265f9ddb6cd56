import { startJaeger, type TailSampling, type TestJaeger } from '../../../scripts/test/jaeger.js';
import { freePort } from '../../../scripts/test/ports.js';
import type { GroupProcess } from '../../../scripts/test/process.js';
import { createFixtureDatabase, startGatewayCli, testRedisUrl } from './gateway.js';

/** A gateway process with tracing on, sending its traces to a Jaeger of its own. */
export interface TracedGateway {
  base: string;
  /** Where Prometheus scrapes it (host:port) and the URL of its metrics. */
  metricsTarget: string;
  metricsUrl: string;
  jaeger: TestJaeger;
  process: GroupProcess;
  stop(): Promise<void>;
}

export interface TracedGatewayOptions {
  /** The suite's Redis database the gateway uses (its own: cached bodies must not mix); none without. */
  redisDatabase?: number;
  /** Gateway settings over the defaults (the fixture catalog, every request traced). */
  env?: Record<string, string>;
  /** The collector's tail sampling, if any. */
  tailSampling?: TailSampling;
}

/**
 * Jaeger, then the gateway CLI (tracing must start before the gateway's modules load, so it runs
 * as its own process) on the fixture catalog, every request traced unless `env` says otherwise.
 */
export async function startTracedGateway({ redisDatabase, env = {}, tailSampling }: TracedGatewayOptions): Promise<TracedGateway> {
  const jaeger = await startJaeger({ tailSampling });
  const port = await freePort();
  const metricsPort = await freePort();
  const gateway = startGatewayCli([], {
    DATABASE_URL: env.DATABASE_URL ?? (await createFixtureDatabase()),
    ...(redisDatabase === undefined ? {} : { REDIS_URL: testRedisUrl(redisDatabase) }),
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '1.0',
    // Spans leave in batches every 200 ms instead of 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '200',
    ...env,
  });
  try {
    await gateway.waitForOutput('catalog-gateway ready', 60_000);
  } catch (error) {
    await jaeger.stop();
    throw error;
  }
  const base = `http://127.0.0.1:${port}`;
  // The one place that knows where /metrics is served.
  const metricsTarget = `127.0.0.1:${metricsPort}`;
  return {
    base,
    metricsTarget,
    metricsUrl: `http://${metricsTarget}/metrics`,
    jaeger,
    process: gateway,
    async stop() {
      await gateway.stop(10_000);
      await jaeger.stop();
    },
  };
}

/** The trace id a traced response names in its `traceresponse` header. */
export function traceIdOf(response: Response): string {
  const header = response.headers.get('traceresponse');
  const match = header && /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header);
  if (!match) throw new Error(`the response names no trace: traceresponse is ${header}`);
  return match[1]!;
}
