import type { Repositories } from '../repository/index.js';
import type { ProductRow } from '../repository/products.js';
import { sharedDataLoader } from '../telemetry/shared-batches.js';

type LoaderName = 'product' | 'productWithFeatures' | 'styleTrees' | 'relatedIds' | 'document';
export type BatchObserver = (loader: LoaderName, size: number) => void;

/** Largest id list one statement carries. */
const MAX_BATCH = 100;

/**
 * Statements one batcher keeps in flight. While that many run, its next batch keeps collecting
 * ids instead of leaving at once: under load more ids share a statement (Postgres spends far less
 * per id at 25 ids than at 5), and at low load nothing waits. Each statement is still bounded by
 * the pool wait and the statement timeout, so a held batch is too.
 */
const MAX_IN_FLIGHT = 2;

/** Dispatches a batcher's batches on the next turn, or as soon as one of its statements ends. */
function dispatchGate() {
  let inFlight = 0;
  const held: (() => void)[] = [];
  return {
    schedule: (dispatch: () => void) => setImmediate(() => (inFlight < MAX_IN_FLIGHT ? dispatch() : held.push(dispatch))),
    async run<T>(statement: () => Promise<T>): Promise<T> {
      inFlight += 1;
      try {
        return await statement();
      } finally {
        inFlight -= 1;
        held.shift()?.();
      }
    },
  };
}

/**
 * App-wide batchers: the loads that concurrent requests issue in the same turn of the event loop
 * share one statement (Postgres does far less work per product in one statement for many ids
 * than in one statement per id). They batch only; nothing is cached across requests.
 */
export function createSharedBatchers(repositories: Repositories, observeBatch: BatchObserver) {
  const batcher = <Row extends { id: number }>(name: LoaderName, fetch: (ids: readonly number[]) => Promise<Row[]>) => {
    const gate = dispatchGate();
    return sharedDataLoader<number, Row | null>(
      async (ids) => {
        observeBatch(name, ids.length);
        const rows = await gate.run(() => fetch(ids));
        const found = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => found.get(id) ?? null);
      },
      // The gate waits at least for every request whose I/O arrived in this turn, not just this one.
      { cache: false, maxBatchSize: MAX_BATCH, batchScheduleFn: gate.schedule, name: `shared ${name}` },
    );
  };
  const { products, documents } = repositories;

  return {
    product: batcher<ProductRow>('product', (ids) => products.findByIds(ids)),
    productWithFeatures: batcher('productWithFeatures', (ids) => documents.findWithFeatures(ids)),
    styleTrees: batcher('styleTrees', (ids) => documents.findStyleTrees(ids)),
    relatedIds: batcher('relatedIds', (ids) => documents.findRelatedIds(ids)),
    document: batcher('document', (ids) => documents.findDocuments(ids)),
  };
}

export type SharedBatchers = ReturnType<typeof createSharedBatchers>;
