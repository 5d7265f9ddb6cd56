import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import type { JaegerTrace } from '../../scripts/test/jaeger.js';
import { startTracedGateway, traceIdOf, type TracedGateway } from './support/traced-gateway.js';

/** The resource attributes of the process that sent the trace's spans, as Jaeger keeps them. */
function resourceOf(trace: JaegerTrace): Record<string, unknown> {
  const [process] = Object.values(trace.processes);
  assert.ok(process, 'the trace names no process');
  return { 'service.name': process.serviceName, ...Object.fromEntries((process.tags ?? []).map(({ key, value }) => [key, value])) };
}

describe('tracing resource and switches (the OpenTelemetry environment variables, to a real Jaeger)', { timeout: 180_000 }, () => {
  const started: TracedGateway[] = [];
  after(() => Promise.all(started.map((gateway) => gateway.stop())));

  it("carries OTEL_RESOURCE_ATTRIBUTES, the SDK's telemetry.sdk.* and the host and process detectors' attributes", async () => {
    const gateway = await startTracedGateway({
      env: {
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test,team=catalog,service.name=overridden',
        OTEL_SERVICE_NAME: 'catalog-gateway-test',
      },
    });
    started.push(gateway);
    const response = await fetch(`${gateway.base}/products/1`);
    assert.equal(response.status, 200);
    const trace = await gateway.jaeger.waitForTrace(traceIdOf(response));
    const resource = resourceOf(trace);
    assert.equal(resource['deployment.environment'], 'test');
    assert.equal(resource.team, 'catalog');
    assert.equal(resource['service.name'], 'catalog-gateway-test', 'OTEL_SERVICE_NAME wins over service.name in OTEL_RESOURCE_ATTRIBUTES');
    assert.equal(resource['telemetry.sdk.name'], 'opentelemetry');
    assert.equal(resource['telemetry.sdk.language'], 'nodejs');
    assert.equal(typeof resource['host.name'], 'string');
    assert.equal(Number(resource['process.pid']), gateway.process.pid);
  });

  it('with OTEL_SDK_DISABLED=true (or OTEL_TRACES_EXPORTER=none) exports nothing, though an endpoint is set', async () => {
    const switches: Record<string, string>[] = [{ OTEL_SDK_DISABLED: 'true' }, { OTEL_TRACES_EXPORTER: 'none' }];
    for (const env of switches) {
      const gateway = await startTracedGateway({ env });
      started.push(gateway);
      for (let request = 0; request < 5; request += 1) {
        const response = await fetch(`${gateway.base}/products/1${request === 0 ? '' : `/styles`}`);
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('traceresponse'), null, `${JSON.stringify(env)}: a response names a trace`);
      }
      // Longer than the batch delay (200 ms) many times over: anything exported would be there.
      await sleep(2_000);
      assert.deepEqual(await gateway.jaeger.services(), [], `${JSON.stringify(env)}: Jaeger received spans`);
    }
  });
});
