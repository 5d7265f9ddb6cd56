import { FrequencySketch } from './admission.js';
import type { CachedRoute } from './cached-routes.js';

export interface SharedAdmissionLimits {
  /** A route's responses are all stored until it has computed this many: too few to judge its reuse. */
  judgeAfter: number;
  /** Reads per computed response below which a route's stores do not pay for themselves. */
  minReadsPerResponse: number;
  /** Both counts of a route are halved once its computed responses reach this: its reuse follows the traffic. */
  window: number;
  /** About how many declined keys are remembered (sizes the filter that remembers them). */
  rememberedKeys: number;
}

/**
 * A store costs Redis a check script (every tag's version, pending mark and count) and this
 * process the entry's encoding and a round trip: a sizeable share of the computation a hit
 * saves. Under uniformly cold traffic nothing stored is read again, and every miss paid for a
 * store that no one used. So a route's responses are stored while they are read back at least
 * this often, judged over its recent computations.
 */
export const SHARED_ADMISSION_LIMITS: SharedAdmissionLimits = {
  judgeAfter: 1_000,
  minReadsPerResponse: 0.2,
  window: 8_192,
  rememberedKeys: 100_000,
};

/**
 * Decides whether a computed response is offered to Redis: skipping a store is always safe (the
 * entry is optional: a later miss computes it again), so this only trades Redis work against the
 * hits it would bring. Offered stores go through the coherence checks as before.
 *
 * Per route, it counts the responses computed and how many were read back: a Redis hit, or a key
 * computed again after its store was declined (it would have been a hit), so declining costs no
 * sight of a route's reuse. A route is stored while its reads per computed response reach
 * `minReadsPerResponse`; below that, a key is stored the second time it is computed.
 */
export class SharedStoreAdmission {
  private readonly routes = new Map<CachedRoute, { computed: number; reads: number }>();
  /** Keys whose store was declined, until the filter forgets them (it is cleared now and then). */
  private readonly declined: FrequencySketch;

  constructor(private readonly limits: SharedAdmissionLimits = SHARED_ADMISSION_LIMITS) {
    this.declined = new FrequencySketch(limits.rememberedKeys);
  }

  /** Whether to offer the response computed for `key` (of `route`) to Redis. */
  admit(key: string, route: CachedRoute): boolean {
    const counts = this.countsOf(route);
    const computedAgain = this.declined.frequency(key) > 0;
    if (computedAgain) counts.reads += 1;
    counts.computed += 1;
    const { judgeAfter, minReadsPerResponse, window } = this.limits;
    const admitted = computedAgain || counts.computed <= judgeAfter || counts.reads >= minReadsPerResponse * counts.computed;
    if (counts.computed >= window) {
      counts.computed /= 2;
      counts.reads /= 2;
    }
    if (!admitted) this.declined.record(key);
    return admitted;
  }

  /** A response of `route` was read from Redis. */
  read(route: CachedRoute): void {
    this.countsOf(route).reads += 1;
  }

  private countsOf(route: CachedRoute): { computed: number; reads: number } {
    let counts = this.routes.get(route);
    if (!counts) this.routes.set(route, (counts = { computed: 0, reads: 0 }));
    return counts;
  }
}
