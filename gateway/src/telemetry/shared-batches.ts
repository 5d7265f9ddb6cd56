import { ROOT_CONTEXT, context, type Context } from '@opentelemetry/api';
import DataLoader from 'dataloader';
import { activeContext, activeTracer, requestSpan } from './tracing.js';

type Options<Key, Value> = DataLoader.Options<Key, Value> & { batchScheduleFn: (dispatch: () => void) => void };

/**
 * A DataLoader whose batches concurrent requests share (loaders/shared-batchers.ts), traced: a
 * batch runs in the context of the first traced request that joined it, whichever request opened
 * it and whenever it is dispatched (its scheduler may hold it and dispatch it when another
 * batch's statement ends, in that statement's context). So in that request's trace the batch
 * span (dataloader instrumentation) sits under its own load and the SQL under the batch, and it
 * links to the other traced requests' loads; a batch no traced request joined runs in the root
 * context, where nothing is traced. Tracing off, it is a plain DataLoader.
 */
export function sharedDataLoader<Key, Value>(
  batch: DataLoader.BatchLoadFn<Key, Value>,
  options: Options<Key, Value>,
): DataLoader<Key, Value> {
  return activeTracer() ? new TraceJoiningDataLoader(batch, options) : new DataLoader(batch, options);
}

/** The batch being collected: the context of the first traced request that joined it. */
interface CollectingBatch {
  context: Context | undefined;
}

class TraceJoiningDataLoader<Key, Value> extends DataLoader<Key, Value> {
  private readonly batches: { collecting: CollectingBatch | undefined };

  constructor(batch: DataLoader.BatchLoadFn<Key, Value>, options: Options<Key, Value>) {
    const batches: { collecting: CollectingBatch | undefined } = { collecting: undefined };
    super(batch, {
      ...options,
      // Called as each batch opens, by the load that opens it (DataLoader appends only to the newest batch).
      batchScheduleFn: (dispatch) => {
        const opened: CollectingBatch = { context: undefined };
        batches.collecting = opened;
        options.batchScheduleFn(() => {
          if (batches.collecting === opened) batches.collecting = undefined;
          const runIn = opened.context ?? ROOT_CONTEXT;
          // Most batches run where they are dispatched, in no trace: entering the context they are
          // already in would only allocate.
          if (activeContext() === runIn) dispatch();
          else context.with(runIn, dispatch);
        });
      },
    });
    this.batches = batches;
  }

  override load(key: Key): Promise<Value> {
    const loaded = super.load(key);
    const batch = this.batches.collecting;
    if (batch && !batch.context && requestSpan()) batch.context = activeContext();
    return loaded;
  }
}
