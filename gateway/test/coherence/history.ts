// The recorded history of a coherence run: every operation a client made, with when it began and
// ended on this process's monotonic clock, where it went and what came back. The checker judges
// only this record, never how long anything took.

/** Milliseconds on the test process's monotonic clock: the one clock every record uses. */
export const now = (): number => performance.now();

/**
 * An HTTP status; a GraphQL answer with errors (whatever its status); or no answer at all:
 * `timeout` (the client gave up) or `error` (connection refused, reset…); `committed`: a write
 * made in SQL whose COMMIT Postgres answered.
 */
export type Outcome = number | 'graphql-errors' | 'timeout' | 'error' | 'committed';

interface OperationBase {
  /** The client that made it (`writer-2`, `reader-7`). */
  client: string;
  /** The gateway it was sent to. */
  gateway: string;
  /** What kind of request it was (`REST GET /products/:id`, `GraphQL product POST`…), for reports. */
  label: string;
  /** Method and path as sent. */
  path: string;
  /** Before the request left this process. */
  start: number;
  /** After its answer was read in full, or the client gave up. */
  end: number;
  outcome: Outcome;
}

/** A write of one product's slogan, which encodes the product, its writer and a per-product version. */
export interface WriteRecord extends OperationBase {
  kind: 'write';
  product: number;
  version: number;
  slogan: string;
  /** Answered 2xx (and, over GraphQL, without errors): from `end` on, every read must see it. */
  acknowledged: boolean;
  /**
   * A write made in SQL, not through a gateway (committed at `end`): every read must see it
   * only from `end + visibleWithinMs` on, the bound of change capture.
   */
  visibleWithinMs?: number;
}

/** One product as a read saw it; `slogan` null when the answer did not hold the product. */
export interface Observation {
  product: number;
  slogan: string | null;
}

/** A read: one product, or a list of them. `observed` is empty unless it answered 2xx. */
export interface ReadRecord extends OperationBase {
  kind: 'read';
  observed: Observation[];
}

export type OperationRecord = WriteRecord | ReadRecord;

export const isSuccess = (outcome: Outcome): boolean => typeof outcome === 'number' && outcome >= 200 && outcome < 300;

/** The request never got an answer: it may or may not have reached the gateway. */
export const isUnanswered = (outcome: Outcome): boolean => outcome === 'timeout' || outcome === 'error';

/** Collects the operations of every client of a run (appending only: clients share one instance). */
export class HistoryRecorder {
  readonly operations: OperationRecord[] = [];
  /** Time 0 of the run's report. */
  readonly origin = now();

  record(operation: OperationRecord): void {
    this.operations.push(operation);
  }
}
