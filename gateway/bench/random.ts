import { SeededRandom } from '@catalog/loader-job';

/**
 * Seeded randomness for request plans, so every run (and every target) sees the same ids: the
 * loader generator's PRNG, as a plain function.
 */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  const source = new SeededRandom(seed);
  return () => source.next();
}

/** Uniform integer in [min, max]. */
export function uniformInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/**
 * Zipf-distributed rank in [1, population]: P(rank) ∝ 1 / rank^exponent, drawn by binary
 * search over the precomputed cumulative weights.
 */
export function zipfSampler(random: Random, population: number, exponent: number): () => number {
  const cumulative = new Float64Array(population);
  let total = 0;
  for (let rank = 1; rank <= population; rank += 1) {
    total += 1 / rank ** exponent;
    cumulative[rank - 1] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = population - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}
