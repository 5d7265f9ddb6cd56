import { parseArgs } from 'node:util';
import { VARIANT_NAMES, type VariantName } from './variants.js';
import type { LoadSettings } from './wrk.js';

/** The workloads by their short names, in the order a run measures them. */
export const WORKLOAD_NAMES = ['page', 'cold', 'hot', 'longtail', 'storefront'] as const;
export type WorkloadName = (typeof WORKLOAD_NAMES)[number];

export interface BenchOptions {
  products: number;
  seed: number;
  load: LoadSettings;
  warmupSeconds: number;
  /** Each target's measured time is split into this many rounds, alternating between targets. */
  rounds: number;
  gatewayLogLevel: string;
  /** Write a V8 CPU profile of each gateway (results/profiles/, a variant's in profiles/<variant>/) to see where its time goes. */
  profileGateway: boolean;
  /** Distinct products the long-tail mix asks for (Zipf ranks spread over the catalog). */
  longTailRanks: number;
  /** Which workloads to measure (all by default): lets a profile or an A/B test focus on one. */
  workloads: ReadonlySet<WorkloadName>;
  /** Another checkout of the repository whose gateway joins the hot mix, for a before/after ratio. */
  baselineCheckout: string | undefined;
  /** Gateways with a feature on (variants.ts), each joining the workloads it names, beside a control. */
  variants: readonly VariantName[];
  /**
   * Gateway processes per variant and for the control, their share of a workload's measured time
   * split among them: a variant's share averages over that many processes' luck.
   */
  processes: number;
}

const USAGE = `usage: npm run bench -- gateway [--products N] [--seed S] [--duration SECONDS] [--rounds N] [--warmup SECONDS]
                                [--connections N] [--threads N] [--gateway-log-level LEVEL]
                                [--long-tail-ranks N] [--profile-gateway] [--workloads page,cold,hot,longtail,storefront]
                                [--accept-encoding VALUE] [--baseline-checkout DIR] [--variants ${VARIANT_NAMES.join(',')}]
                                [--processes N]`;

/** `--<name>`'s value as a positive integer; anything else throws, with the command's `usage`. */
export function positiveInteger(name: string, value: string, usage = USAGE): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`--${name} must be a positive integer, got "${value}"\n${usage}`);
  return parsed;
}

export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      products: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '42' },
      duration: { type: 'string', default: '21' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '5' },
      connections: { type: 'string', default: '64' },
      threads: { type: 'string', default: '1' },
      'gateway-log-level': { type: 'string', default: 'info' },
      'long-tail-ranks': { type: 'string', default: '200000' },
      'profile-gateway': { type: 'boolean', default: false },
      workloads: { type: 'string', default: WORKLOAD_NAMES.join(',') },
      'accept-encoding': { type: 'string' },
      'baseline-checkout': { type: 'string' },
      variants: { type: 'string', default: '' },
      processes: { type: 'string', default: '4' },
    },
    strict: true,
  });
  return {
    products: positiveInteger('products', values.products),
    seed: positiveInteger('seed', values.seed),
    load: {
      durationSeconds: positiveInteger('duration', values.duration),
      connections: positiveInteger('connections', values.connections),
      threads: positiveInteger('threads', values.threads),
      timeoutSeconds: 5,
      acceptEncoding: values['accept-encoding'],
    },
    warmupSeconds: positiveInteger('warmup', values.warmup),
    rounds: positiveInteger('rounds', values.rounds),
    gatewayLogLevel: values['gateway-log-level'],
    longTailRanks: positiveInteger('long-tail-ranks', values['long-tail-ranks']),
    profileGateway: values['profile-gateway'],
    workloads: workloadSet(values.workloads),
    baselineCheckout: values['baseline-checkout'],
    variants: variantList(values.variants, values['baseline-checkout']),
    processes: positiveInteger('processes', values.processes),
  };
}

function variantList(list: string, baselineCheckout: string | undefined): VariantName[] {
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(VARIANT_NAMES as string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`--variants takes a comma-separated list of ${VARIANT_NAMES.join(', ')}; got "${list}"\n${USAGE}`);
  if (names.includes('baseline') && baselineCheckout === undefined)
    throw new Error(`--variants baseline runs the gateways of --baseline-checkout DIR: name the checkout\n${USAGE}`);
  return names as VariantName[];
}

function workloadSet(list: string): ReadonlySet<WorkloadName> {
  const names = list.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(WORKLOAD_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new Error(`--workloads takes a comma-separated list of ${WORKLOAD_NAMES.join(', ')}; got "${list}"\n${USAGE}`);
  }
  return new Set(names as WorkloadName[]);
}
