// Zipf-distributed picks without a per-item table (a 1M-product catalog would cost every VU a
// 1M-entry CDF): inverse-CDF sampling of the continuous power law x^-s on [1, n+1), floored.

/**
 * @param {number} n number of items (ranks 1..n)
 * @param {number} exponent Zipf exponent s >= 0 (0 = uniform)
 * @param {() => number} random uniform [0, 1) source
 * @returns {() => number} sampler of ranks 1..n, rank 1 the most popular
 */
export function zipfSampler(n, exponent, random = Math.random) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`zipf: n must be a positive integer, got ${n}`);
  if (exponent === 1) {
    const logSpan = Math.log(n + 1);
    return () => Math.min(n, Math.floor(Math.exp(random() * logSpan)));
  }
  const oneMinusS = 1 - exponent;
  const span = Math.pow(n + 1, oneMinusS) - 1;
  return () => Math.min(n, Math.floor(Math.pow(1 + random() * span, 1 / oneMinusS)));
}

/**
 * Spreads popularity ranks over ids 1..n so the hot products are not simply ids 1, 2, 3 (which
 * would also be the first list page): a fixed permutation, rank → (rank - 1) * step mod n + 1
 * with `step` coprime to n.
 */
export function scatterRanks(n) {
  let step = Math.max(1, Math.floor(n * 0.618034));
  while (gcd(step, n) !== 1) step += 1;
  return (rank) => (((rank - 1) * step) % n) + 1;
}

function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}
