import { DatabaseBusyError } from './availability.js';

export interface AdmissionOptions {
  /** Statements that may run at once: the pool size. */
  concurrency: number;
  /** Statements that may wait for a connection; more are refused at once. */
  maxQueue: number;
  /** Refuse a statement whose expected wait for a connection is longer than this. */
  maxWaitMs: number;
  /** Called with the reason of every refusal (for metrics). */
  onReject: (reason: 'queue full' | 'wait too long') => void;
}

/** Weight of the newest statement in the running average of statement durations. */
const SMOOTHING = 0.1;

/**
 * Admission control in front of the pool: at most `concurrency` statements run, a bounded
 * queue waits for them, and a statement that would wait too long (queue full, or expected wait
 * = its place in the queue × the average statement time ÷ connections over `maxWaitMs`) is
 * refused at once with a 503. Without it, overload made every excess request wait the whole
 * acquire timeout before failing, and the ones admitted waited behind them.
 */
export class AdmissionGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private averageMs = 5;

  constructor(private readonly options: AdmissionOptions) {}

  /** Statements running or waiting for a connection. */
  get load(): number {
    return this.running + this.waiting.length;
  }

  async run<T>(statement: () => Promise<T>): Promise<T> {
    if (this.running >= this.options.concurrency) await this.enqueue();
    this.running += 1;
    const started = performance.now();
    try {
      return await statement();
    } finally {
      this.averageMs += SMOOTHING * (performance.now() - started - this.averageMs);
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  private enqueue(): Promise<void> {
    const { maxQueue, maxWaitMs, concurrency, onReject } = this.options;
    if (this.waiting.length >= maxQueue) {
      onReject('queue full');
      throw new DatabaseBusyError(`database overloaded: ${this.waiting.length} statements already queued`, 1);
    }
    const expectedWaitMs = ((this.waiting.length + 1) * this.averageMs) / concurrency;
    if (expectedWaitMs > maxWaitMs) {
      onReject('wait too long');
      throw new DatabaseBusyError(`database overloaded: expected wait ${Math.round(expectedWaitMs)} ms exceeds ${maxWaitMs} ms`, 1);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
