import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ROOT_CONTEXT, context, trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import DataLoader from 'dataloader';
import { EdgeDecidedSampler, EdgeSampling } from '../src/telemetry/sampling.js';
import { sharedDataLoader } from '../src/telemetry/shared-batches.js';
import { REQUEST_SPAN, useTracer } from '../src/telemetry/tracing.js';

/**
 * The app-wide batchers' contract with tracing (loaders/shared-batchers.ts): a batch runs in the
 * context of the first traced request that joined it, whoever opened it and whoever releases it
 * (the dispatch gate holds batches and releases them from another statement's continuation).
 */
describe('shared DataLoader batches and trace context', () => {
  /** A loader whose batches wait to be dispatched by hand; records the context each batch ran in. */
  function heldLoader() {
    const held: (() => void)[] = [];
    const ranIn: Context[] = [];
    const loader = sharedDataLoader<number, number>(
      async (ids) => {
        ranIn.push(context.active());
        return ids.map((id) => id * 10);
      },
      { cache: false, batchScheduleFn: (dispatch) => held.push(dispatch) },
    );
    return { loader, held, ranIn };
  }

  it('is a plain DataLoader while tracing is off', () => {
    assert.equal(Object.getPrototypeOf(heldLoader().loader), DataLoader.prototype);
  });

  describe('with tracing on', () => {
    const provider = new NodeTracerProvider({ sampler: new EdgeDecidedSampler() });
    const tracer = provider.getTracer('test');
    before(() => {
      const contextManager = new AsyncLocalStorageContextManager();
      provider.register({ contextManager });
      useTracer(tracer, EdgeSampling.of({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: '1' }), contextManager);
    });
    /** A traced request's context, as the edge makes it. */
    const tracedRequest = (name: string): Context => {
      const span = tracer.startSpan(name, { kind: 1 /* server */ });
      return trace.setSpan(ROOT_CONTEXT, span).setValue(REQUEST_SPAN, span);
    };

    it('runs a batch an untraced request opened in the context of the traced request that joined it, whoever releases it', async () => {
      const { loader, held, ranIn } = heldLoader();
      const joiner = tracedRequest('joiner');
      const untraced = loader.load(1);
      const traced = context.with(joiner, () => loader.load(2));
      // Released from a third request's continuation, as the gate does when a statement ends.
      context.with(tracedRequest('releaser'), () => held.shift()!());
      assert.deepEqual(await Promise.all([untraced, traced]), [10, 20]);
      assert.equal(ranIn.length, 1);
      assert.equal(ranIn[0], joiner);
    });

    it('runs a batch no traced request joined in the root context, even when a traced one releases it', async () => {
      const { loader, held, ranIn } = heldLoader();
      const loaded = loader.loadMany([1, 2, 3]);
      context.with(tracedRequest('releaser'), () => held.shift()!());
      assert.deepEqual(await loaded, [10, 20, 30]);
      assert.equal(ranIn[0], ROOT_CONTEXT);
    });

    it('gives each batch its own first traced joiner when batches fill up and open anew', async () => {
      const held: (() => void)[] = [];
      const ranIn: Context[] = [];
      const loader = sharedDataLoader<number, number>(
        async (ids) => {
          ranIn.push(context.active());
          return [...ids];
        },
        { cache: false, maxBatchSize: 2, batchScheduleFn: (dispatch) => held.push(dispatch) },
      );
      const [first, second] = [tracedRequest('first'), tracedRequest('second')];
      const loads = [context.with(first, () => loader.loadMany([1, 2])), loader.load(3), context.with(second, () => loader.load(4))];
      assert.equal(held.length, 2);
      for (const dispatch of held.splice(0).reverse()) dispatch();
      await Promise.all(loads);
      assert.deepEqual(ranIn, [second, first]);
    });
  });
});
