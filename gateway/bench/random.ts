/**
 * Seeded randomness for request plans, so every run (and every target) sees the same ids.
 * mulberry32: tiny, fast and good enough to pick ids; cryptographic quality is not needed.
 */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
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
