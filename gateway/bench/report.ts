import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchOptions } from './options.js';
import { processTargets, sideOf, VARIANT_NAMES, VARIANTS, type VariantName, type VariantTarget } from './variants.js';
import type { LoadResult } from './wrk.js';

export type Workload =
  | 'REST mix, cold'
  | 'REST mix, hot'
  | 'REST mix, long tail'
  | 'GraphQL product page, cold'
  | 'Storefront category page 1 by price'
  | 'Storefront deep category page by price';
export type TargetName =
  'gateway' | 'gateway, cache on' | 'bare node:http' | 'postgraphile' | 'gateway (baseline)' | 'postgres ceiling (pgbench)' | VariantTarget;

export interface Cell extends LoadResult {
  workload: Workload;
  target: TargetName;
  rounds: number;
  /** A cold or long-tail plan that wrapped around served some repeated (cache-warm) requests. */
  planWrapped: boolean;
  /** Highest 1-minute load average seen as a round started: above the core count, others competed. */
  machineLoad: number;
  /** CPU time per request: the target's own process, and what Postgres and Redis spent for it. */
  cpuMicrosPerRequest: { server: number; postgres: number; redis: number };
}

interface Ratio {
  name: string;
  value: number | null;
  target: number | null;
}

/**
 * Targets measured only to compare against: a request of theirs that outlasts wrk's timeout is
 * their slowness, part of their result, not a broken run (wrk leaves it out of RPS and latency,
 * which the table's note says). Any error of the gateway or the bare server still fails the run.
 */
const COMPARED_ONLY: ReadonlySet<TargetName> = new Set(['postgraphile']);

const totalCpuMicros = ({ cpuMicrosPerRequest: { server, postgres, redis } }: Cell) => server + postgres + redis;

/** Throughput and CPU per request of one cell, or of several pooled (their requests over their time). */
function measured(found: readonly Cell[]): { rps: number; cpuMicros: number } | undefined {
  if (found.length === 0) return undefined;
  const requests = found.reduce((sum, cell) => sum + cell.requests, 0);
  return {
    rps: requests / found.reduce((sum, cell) => sum + cell.seconds, 0),
    cpuMicros: found.reduce((sum, cell) => sum + totalCpuMicros(cell) * cell.requests, 0) / requests,
  };
}

/** How a ratio names one side: the target, or a variant's processes pooled. */
function sideLabel(side: readonly TargetName[]): string {
  return side.length === 1 ? side[0]! : `${side[0]!} (${side.length} processes pooled)`;
}

/**
 * Gateway relative to a baseline, by throughput and by CPU efficiency (higher is better for both).
 * Either side may be several targets, pooled (all must have run): a variant's processes.
 */
function ratioPair(
  cells: readonly Cell[],
  workload: Workload,
  over: TargetName | readonly TargetName[],
  target: number | null,
  of: TargetName | readonly TargetName[] = 'gateway',
): Ratio[] {
  const names = (side: TargetName | readonly TargetName[]): readonly TargetName[] => (typeof side === 'string' ? [side] : side);
  const find = (side: readonly TargetName[]) => {
    const found = cells.filter((cell) => cell.workload === workload && side.includes(cell.target));
    return found.length === side.length ? measured(found) : undefined;
  };
  const [ofNames, overNames] = [names(of), names(over)];
  const gateway = find(ofNames);
  const baseline = find(overNames);
  const both = gateway && baseline;
  const label = `${workload}: ${sideLabel(ofNames)} / ${sideLabel(overNames)}`;
  return [
    { name: `${label}, RPS`, value: both ? gateway.rps / baseline.rps : null, target },
    {
      name: `${label}, requests per CPU-second (target + Postgres + Redis)`,
      value: both ? baseline.cpuMicros / gateway.cpuMicros : null,
      target,
    },
  ];
}

/** The processes of a variant (or of the control) in a workload: as many as the most either side ran. */
function sideTargets(cells: readonly Cell[], workload: Workload, name: VariantName | 'control', other: VariantName | 'control') {
  const ran = (side: VariantName | 'control') => cells.filter((cell) => cell.workload === workload && sideOf(cell.target) === side).length;
  return processTargets(name, Math.max(ran(name), ran(other)));
}

/**
 * The slowest of a side's processes over the fastest, by RPS and by CPU efficiency: identical
 * gateways' spread, the noise a share is read against.
 */
function processSpread(cells: readonly Cell[], workload: Workload, name: VariantName | 'control'): Ratio[] {
  const side = cells.filter((cell) => cell.workload === workload && sideOf(cell.target) === name).map((cell) => measured([cell])!);
  if (side.length < 2) return [];
  const label = `${workload}: ${VARIANTS[name].target}, its ${side.length} processes, slowest / fastest`;
  const rps = side.map((process) => process.rps);
  const efficiency = side.map((process) => 1 / process.cpuMicros);
  return [
    { name: `${label}, RPS`, value: Math.min(...rps) / Math.max(...rps), target: null },
    {
      name: `${label}, requests per CPU-second (target + Postgres + Redis)`,
      value: Math.min(...efficiency) / Math.max(...efficiency),
      target: null,
    },
  ];
}

/** The workloads a target ran in. */
const workloadsOf = (cells: readonly Cell[], target: TargetName): Workload[] => [
  ...new Set(cells.filter((cell) => cell.target === target).map((cell) => cell.workload)),
];

export function ratios(cells: readonly Cell[]): Ratio[] {
  return [
    ...ratioPair(cells, 'REST mix, hot', 'bare node:http', 0.8),
    ...ratioPair(cells, 'REST mix, long tail', 'bare node:http', 0.7),
    ...ratioPair(cells, 'GraphQL product page, cold', 'postgraphile', 1.5),
    ...ratioPair(cells, 'Storefront category page 1 by price', 'postgraphile', 1.5),
    ...ratioPair(cells, 'Storefront deep category page by price', 'postgraphile', 1.5),
    ...ratioPair(cells, 'Storefront category page 1 by price', 'postgraphile', null, 'gateway, cache on'),
    ...ratioPair(cells, 'Storefront deep category page by price', 'postgraphile', null, 'gateway, cache on'),
    ...ratioPair(cells, 'REST mix, cold', 'postgres ceiling (pgbench)', 0.4),
    ...ratioPair(cells, 'REST mix, cold', 'bare node:http', null),
    // Present with --baseline-checkout: this revision against another one, in the same run.
    ...ratioPair(cells, 'GraphQL product page, cold', 'gateway (baseline)', null),
    ...ratioPair(cells, 'REST mix, cold', 'gateway (baseline)', null),
    ...ratioPair(cells, 'REST mix, hot', 'gateway (baseline)', null),
    ...ratioPair(cells, 'REST mix, long tail', 'gateway (baseline)', null),
    ...ratioPair(cells, 'Storefront category page 1 by price', 'gateway (baseline)', null),
    ...ratioPair(cells, 'Storefront deep category page by price', 'gateway (baseline)', null),
    // Present with --variants: a feature on against the control (default settings), each side's
    // processes pooled, in the same run; and the spread of each side's processes: identical
    // gateways, the run's noise.
    ...VARIANT_NAMES.flatMap((name) =>
      Object.entries(VARIANTS[name].shares).flatMap(([key, share]) => {
        const workload = key as Workload;
        if (!workloadsOf(cells, VARIANTS[name].target).includes(workload)) return [];
        return ratioPair(
          cells,
          workload,
          sideTargets(cells, workload, 'control', name),
          share,
          sideTargets(cells, workload, name, 'control'),
        );
      }),
    ),
    ...(['control', ...VARIANT_NAMES] as const).flatMap((name) =>
      workloadsOf(cells, VARIANTS[name].target).flatMap((workload) => processSpread(cells, workload, name)),
    ),
  ];
}

function tableRows(cells: readonly Cell[]) {
  return cells.map((cell) => ({
    workload: cell.workload,
    target: cell.target,
    RPS: Math.round(cell.rps),
    'p50 ms': Number(cell.p50Ms.toFixed(2)),
    'p95 ms': Number(cell.p95Ms.toFixed(2)),
    'p99 ms': Number(cell.p99Ms.toFixed(2)),
    errors: cell.errors,
    requests: cell.requests,
    'CPU µs/req': Math.round(cell.cpuMicrosPerRequest.server),
    'PG µs/req': Math.round(cell.cpuMicrosPerRequest.postgres),
    'Redis µs/req': Math.round(cell.cpuMicrosPerRequest.redis),
    'load avg': Number(cell.machineLoad.toFixed(1)),
    note: cellNotes(cell).join('; '),
  }));
}

function cellNotes({ planWrapped, errorDetail: { timeouts } }: Cell): string[] {
  return [
    ...(planWrapped ? ['cold plan wrapped: some requests repeated'] : []),
    ...(timeouts > 0 ? [`${timeouts} requests timed out: left out of RPS and latency`] : []),
  ];
}

/** Why the run fails, one line per failing cell: any error of ours, a compared target's errors but timeouts. */
export function runFailures(cells: readonly Cell[]): string[] {
  return cells
    .filter((cell) => cell.errors - (COMPARED_ONLY.has(cell.target) ? cell.errorDetail.timeouts : 0) > 0)
    .map((cell) => `${cell.target} (${cell.workload}): ${cell.errors} errors ${JSON.stringify(cell.errorDetail)}`);
}

function ratioLine({ name, value, target }: Ratio): string {
  const shown = value === null ? 'n/a' : value.toFixed(2);
  if (target === null) return `${name}: ${shown} (for information)`;
  const verdict = value === null ? '' : value >= target ? ' — met' : ' — MISSED';
  return `${name}: ${shown} (target ≥ ${target})${verdict}`;
}

export function printReport(cells: readonly Cell[]): void {
  console.table(tableRows(cells));
  for (const line of ratios(cells).map(ratioLine)) console.log(line);
}

function markdown(cells: readonly Cell[], options: BenchOptions, setup: string, date: string): string {
  const rows = tableRows(cells);
  const header = Object.keys(rows[0] ?? {});
  return [
    `# Gateway benchmark — ${date}`,
    '',
    `Scale: ${options.products.toLocaleString('en')} products (seed ${options.seed}).`,
    '',
    setup,
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${Object.values(row).join(' | ')} |`),
    '',
    ...ratios(cells).map((line) => `- ${ratioLine(line)}`),
    '',
  ].join('\n');
}

/** Writes results/latest.json and results/latest.md (the source of the committed RESULTS.md). */
export async function writeReport(resultsDir: string, cells: readonly Cell[], options: BenchOptions, setup: string): Promise<void> {
  const date = new Date().toISOString();
  await mkdir(resultsDir, { recursive: true });
  await writeFile(join(resultsDir, 'latest.json'), JSON.stringify({ date, options, setup, cells, ratios: ratios(cells) }, null, 2));
  await writeFile(join(resultsDir, 'latest.md'), markdown(cells, options, setup, date));
}
