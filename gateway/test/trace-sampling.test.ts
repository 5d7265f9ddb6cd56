import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EdgeSampling } from '../src/telemetry/sampling.js';
import { ConfigError, loadConfig, type Config } from '../src/config.js';

const sampling = (sampler: Config['OTEL_TRACES_SAMPLER'], ratio = '0') =>
  EdgeSampling.of({ OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: ratio });
const parent = (flags: string) => `00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-${flags}`;
/** How many of `count` decisions trace. */
const tracedOf = (edge: EdgeSampling, count: number, traceparent?: string) =>
  Array.from({ length: count }, () => edge.traces(traceparent)).filter(Boolean).length;

describe('the edge sampling decision (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG, traceparent)', () => {
  it('traces a ratio of the requests without a traceparent, none at 0 and all at 1', () => {
    assert.equal(tracedOf(sampling('parentbased_traceidratio', '0'), 1_000), 0);
    assert.equal(tracedOf(sampling('parentbased_traceidratio', '1.0'), 1_000), 1_000);
    const someOf = tracedOf(sampling('traceidratio', '0.5'), 10_000);
    assert.ok(someOf > 4_000 && someOf < 6_000, `about half of 10,000: ${someOf}`);
  });

  it("follows the caller's sampled flag with the parentbased_ samplers, whatever the ratio", () => {
    for (const sampler of ['parentbased_traceidratio', 'parentbased_always_off', 'parentbased_always_on'] as const) {
      const edge = sampling(sampler, '0.5');
      assert.equal(tracedOf(edge, 100, parent('01')), 100, `${sampler}, sampled`);
      assert.equal(tracedOf(edge, 100, parent('00')), 0, `${sampler}, not sampled`);
      assert.equal(tracedOf(edge, 100, parent('03')), 100, `${sampler}, sampled among other flags`);
    }
  });

  it('ignores the caller where OTEL_PROPAGATORS leaves trace context out: its traceparent is no parent then', () => {
    for (const propagators of [['baggage'], []] as Config['OTEL_PROPAGATORS'][]) {
      const edge = EdgeSampling.of({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
        OTEL_PROPAGATORS: propagators,
      });
      assert.equal(tracedOf(edge, 100, parent('01')), 0, JSON.stringify(propagators));
    }
    const withTraceContext = EdgeSampling.of({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
      OTEL_PROPAGATORS: ['tracecontext'],
    });
    assert.equal(tracedOf(withTraceContext, 100, parent('01')), 100);
  });

  it('ignores the caller with the other samplers, and a traceparent that is not valid with any', () => {
    assert.equal(tracedOf(sampling('traceidratio', '0'), 100, parent('01')), 0);
    assert.equal(tracedOf(sampling('always_on'), 100, parent('00')), 100);
    assert.equal(tracedOf(sampling('always_off'), 100, parent('01')), 0);
    const invalid = [
      '00-00000000000000000000000000000000-b7ad6b7169203331-01', // all-zero trace id
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', // all-zero parent id
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01', // upper case
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01, 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', // twice
      'not a traceparent',
    ];
    for (const traceparent of invalid) {
      assert.equal(tracedOf(sampling('parentbased_traceidratio', '0'), 10, traceparent), 0, traceparent);
      assert.equal(tracedOf(sampling('parentbased_traceidratio', '1'), 10, traceparent), 10, traceparent);
    }
  });
});

describe('tracing settings', () => {
  it('are off by default, and refuse at start-up what no collector or sampler would take, naming each', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.OTEL_EXPORTER_OTLP_ENDPOINT, undefined);
    assert.equal(defaults.OTEL_TRACES_SAMPLER, 'parentbased_traceidratio');
    assert.equal(defaults.OTEL_TRACES_SAMPLER_ARG, '0.01');
    assert.throws(
      () =>
        loadConfig({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317',
          OTEL_TRACES_SAMPLER: 'jaeger_remote',
          OTEL_TRACES_SAMPLER_ARG: '1.5',
        }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http/.test(error.message) &&
        /OTEL_TRACES_SAMPLER: /.test(error.message) &&
        /OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1/.test(error.message),
    );
  });
});
