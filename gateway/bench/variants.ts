import type { Workload } from './report.js';

/** What the run starts only for the variants that need it. */
export interface VariantBackends {
  /** OTLP/HTTP receiver of a Jaeger started for the run (OTEL_EXPORTER_OTLP_ENDPOINT). */
  otlpEndpoint: string;
  /** A streaming replica of the benchmark catalog, cloned from its primary for the run. */
  readReplicaUrl: string;
}

interface Variant {
  target: string;
  /**
   * The workloads the variant joins, each with the least share of the control's throughput it
   * must keep, or null where its share is reported for information (a cost to state, no target).
   */
  shares: Partial<Record<Workload, number | null>>;
  needs: readonly (keyof VariantBackends)[];
  env(backends: VariantBackends): Record<string, string>;
  /** Its gateways are those of the --baseline-checkout, not of this checkout. */
  fromBaselineCheckout?: true;
}

/**
 * Gateway settings measured against the defaults in the same run (`--variants`): what a feature
 * costs when it is on. The control has the default settings; it and each variant run as
 * `--processes` gateway processes (`processTargets`), started and warmed the same way, and a
 * share pools each side's processes (their requests over their time): identical gateways keep
 * their own speed for their whole life, up to 15 % apart on the hot mix (where the JIT and the
 * allocator placed their code and data), so a share is only as good as the number of processes
 * it averages over. The run's first gateway is none of them: it also feeds the bare server's
 * recordings, which leaves it in another state than a gateway that only served the benchmark.
 * Each process has its own Redis database (none finds another's cached answers) and joins the
 * workloads its variant's `shares` name (cold ones with ids of its own); the control's join
 * every workload a variant of the run joins.
 */
export const VARIANTS = {
  control: { target: 'gateway (control)', shares: {}, needs: [], env: () => ({}) },
  identical: {
    target: 'gateway, identical to the control',
    // An A/A test: the control's settings as a variant of its own, so its share is the setup's
    // own bias between sides (start order, place in the rounds), read beside the real variants'.
    shares: { 'GraphQL product page, cold': null, 'REST mix, hot': null, 'REST mix, long tail': null },
    needs: [],
    env: () => ({}),
  },
  'no-surrogate-keys': {
    target: 'gateway, no surrogate keys',
    // What the tags a catalog read carries for shared caches cost it: the same gateway with every
    // tag header left out (a deployment with no CDN could run so).
    shares: { 'GraphQL product page, cold': null, 'REST mix, hot': null },
    needs: [],
    env: () => ({ EDGE_SURROGATE_KEY_HEADER: 'none', EDGE_CACHE_TAG_HEADER: 'none' }),
  },
  limits: {
    target: 'gateway, limits on',
    shares: { 'GraphQL product page, cold': 0.95, 'REST mix, hot': 0.9 },
    needs: [],
    // Every request identified, counted and checked, and the counts synced with Redis; none
    // refused (wrk is one client, far below its quotas, so no RateLimit fields are written).
    env: () => ({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_REQUESTS: '1000000000', RATE_LIMIT_GRAPHQL_COST: '1000000000000' }),
  },
  tracing: {
    target: 'gateway, tracing 1 %',
    shares: { 'GraphQL product page, cold': 0.95, 'REST mix, hot': 0.9 },
    needs: ['otlpEndpoint'],
    // Every request instrumented, one in a hundred recorded and exported to a real Jaeger, as the
    // chart's tracing turns it on; the CLI starts the SDK before the gateway's modules load.
    env: ({ otlpEndpoint }) => ({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.01',
    }),
  },
  baseline: {
    target: 'gateway, baseline checkout',
    // The code of --baseline-checkout with its defaults, as many processes as the control: a
    // before/after share as good as the processes it pools, where --baseline-checkout alone
    // starts one process a side and so weighs one process's luck against another's.
    shares: { 'GraphQL product page, cold': null, 'REST mix, hot': null, 'REST mix, long tail': null },
    needs: [],
    env: () => ({}),
    fromBaselineCheckout: true,
  },
  replica: {
    target: 'gateway, reads on a replica',
    // On one machine a replica adds work (WAL replay, a second server's backends, the position
    // polls and checks) and no cores: its share is the cost of reading there, not a target.
    shares: { 'GraphQL product page, cold': null, 'REST mix, cold': null },
    needs: ['readReplicaUrl'],
    env: ({ readReplicaUrl }) => ({ DATABASE_READ_URLS: readReplicaUrl }),
  },
} as const satisfies Record<string, Variant>;

export type VariantName = Exclude<keyof typeof VARIANTS, 'control'>;
export const VARIANT_NAMES = Object.keys(VARIANTS).filter((name) => name !== 'control') as VariantName[];
type FirstProcessTarget = (typeof VARIANTS)[keyof typeof VARIANTS]['target'];
export type VariantTarget = FirstProcessTarget | `${FirstProcessTarget} (#${number})`;

/** The target of a variant's (or the control's) process `index` (from 0), as the report names it: the first, then `(#2)`, `(#3)` … */
export function processTarget(name: VariantName | 'control', index: number): VariantTarget {
  const first: FirstProcessTarget = VARIANTS[name].target;
  return index === 0 ? first : `${first} (#${index + 1})`;
}

/** The targets of a variant's (or the control's) first `count` processes. */
export const processTargets = (name: VariantName | 'control', count: number): VariantTarget[] =>
  Array.from({ length: count }, (_, index) => processTarget(name, index));

/** The variant (or the control) whose processes `target` is one of; undefined for any other target. */
export function sideOf(target: string): VariantName | 'control' | undefined {
  return (Object.keys(VARIANTS) as (VariantName | 'control')[]).find(
    (name) => target === VARIANTS[name].target || target.startsWith(`${VARIANTS[name].target} (#`),
  );
}

/** Whether a variant (the control: any variant of the run) joins `workload`. */
export function variantJoins(name: VariantName | 'control', workload: Workload, runVariants: readonly VariantName[]): boolean {
  if (name === 'control') return runVariants.some((variant) => variantJoins(variant, workload, runVariants));
  return workload in VARIANTS[name].shares;
}

/** The backends the run's variants need. */
export function neededBackends(runVariants: readonly VariantName[]): Set<keyof VariantBackends> {
  return new Set(runVariants.flatMap((name): readonly (keyof VariantBackends)[] => VARIANTS[name].needs));
}
