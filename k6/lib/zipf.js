// The one Zipf sampler of the project: k6 scenarios import it, and so does the gateway benchmark
// (gateway/bench/plans.ts). Plain ES module without k6 imports, so both runtimes load this file.
//
// Exact discrete Zipf without a per-item table (a 1M-product catalog would cost every k6 VU a
// 1M-entry CDF): rejection-inversion sampling (Hörmann & Derflinger, 1996, as in Apache Commons
// RNG's RejectionInversionZipfSampler), O(1) memory, about one uniform draw per rank.

/**
 * @param {number} n number of items (ranks 1..n)
 * @param {number} exponent Zipf exponent s >= 0 (0 = uniform): P(rank) ∝ 1 / rank^s
 * @param {() => number} random uniform [0, 1) source
 * @returns {() => number} sampler of ranks 1..n, rank 1 the most popular
 */
export function zipfSampler(n, exponent, random = Math.random) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`zipf: n must be a positive integer, got ${n}`);
  if (!(exponent >= 0)) throw new Error(`zipf: exponent must be >= 0, got ${exponent}`);
  // h(x) = x^-s; H is an antiderivative of h written so that s = 1 needs no special case.
  const h = (x) => Math.exp(-exponent * Math.log(x));
  const hIntegral = (x) => {
    const logX = Math.log(x);
    return expm1OverX((1 - exponent) * logX) * logX;
  };
  const hIntegralInverse = (x) => {
    const t = Math.max(-1, x * (1 - exponent));
    return Math.exp(log1pOverX(t) * x);
  };
  const hIntegralFirst = hIntegral(1.5) - 1;
  const hIntegralLast = hIntegral(n + 0.5);
  const squeeze = 2 - hIntegralInverse(hIntegral(2.5) - h(2));
  return () => {
    for (;;) {
      const u = hIntegralLast + random() * (hIntegralFirst - hIntegralLast);
      const x = hIntegralInverse(u);
      const rank = Math.min(n, Math.max(1, Math.floor(x + 0.5)));
      if (rank - x <= squeeze || u >= hIntegral(rank + 0.5) - h(rank)) return rank;
    }
  };
}

/** log(1 + x) / x, accurate near 0. */
function log1pOverX(x) {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - 0.25 * x));
}

/** (e^x - 1) / x, accurate near 0. */
function expm1OverX(x) {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + (x / 3) * (1 + 0.25 * x));
}

/**
 * Spreads popularity ranks over ids 1..n so the hot products are not simply ids 1, 2, 3 (which
 * would also be the first list page): a fixed permutation, rank → (rank - 1) * step mod n + 1
 * with `step` coprime to n.
 * @param {number} n
 * @returns {(rank: number) => number}
 */
export function scatterRanks(n) {
  let step = Math.max(1, Math.floor(n * 0.618034));
  while (gcd(step, n) !== 1) step += 1;
  return (rank) => (((rank - 1) * step) % n) + 1;
}

/** @param {number} a @param {number} b @returns {number} */
function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}
