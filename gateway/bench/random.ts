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
