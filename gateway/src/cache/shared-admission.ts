import type { CachedRoute } from './cached-routes.js';

export interface SharedAdmissionLimits {
  /** A route's stores are all admitted until this many were made: too few to judge its reuse. */
  judgeAfterStores: number;
  /** Redis hits per store below which a route's stores do not pay for themselves. */
  minReadsPerStore: number;
  /** The share of a route's responses still stored while it is below that: keeps its reuse measured. */
  sampleShare: number;
  /** Both counts of a route are halved once its stores reach this: its reuse follows the traffic. */
  window: number;
}

/**
 * A store costs Redis a check script (every tag's version, pending mark and count) and this
 * process the entry's encoding and a round trip: a sizeable share of the computation a hit
 * saves. Under uniformly cold traffic almost nothing stored is read again, and every miss paid
 * for a store that no one used. These limits admit every store until a route has made enough to
 * judge, then keep admitting them while its stores are read back at least as often as they pay
 * (hits by any replica, per store of this one: in a fleet both grow together), and a sample
 * otherwise.
 */
export const SHARED_ADMISSION_LIMITS: SharedAdmissionLimits = {
  judgeAfterStores: 1_000,
  minReadsPerStore: 0.2,
  sampleShare: 1 / 16,
  window: 8_192,
};

/**
 * Decides, per route, whether a computed response is offered to Redis: skipping a store is always
 * safe (the entry is optional: a later miss computes it again), so this only trades Redis work
 * against the hits it would bring. Offered stores go through the coherence checks as before.
 */
export class SharedStoreAdmission {
  private readonly routes = new Map<CachedRoute, { stores: number; reads: number }>();

  constructor(private readonly limits: SharedAdmissionLimits = SHARED_ADMISSION_LIMITS) {}

  /** Whether to offer `route`'s response to Redis; an offer counts as one of its stores. */
  admit(route: CachedRoute): boolean {
    const counts = this.countsOf(route);
    const { judgeAfterStores, minReadsPerStore, sampleShare, window } = this.limits;
    const admitted = counts.stores < judgeAfterStores || counts.reads >= minReadsPerStore * counts.stores || Math.random() < sampleShare;
    if (!admitted) return false;
    counts.stores += 1;
    if (counts.stores >= window) {
      counts.stores /= 2;
      counts.reads /= 2;
    }
    return true;
  }

  /** A response of `route` was read from Redis. */
  read(route: CachedRoute): void {
    this.countsOf(route).reads += 1;
  }

  private countsOf(route: CachedRoute): { stores: number; reads: number } {
    let counts = this.routes.get(route);
    if (!counts) this.routes.set(route, (counts = { stores: 0, reads: 0 }));
    return counts;
  }
}
