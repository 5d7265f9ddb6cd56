import type pg from 'pg';
import { SERVING_SCHEMA } from '@catalog/contract';
import type { TableName } from '../catalog-files.js';
import type { FileLoadReport } from './load-report.js';

/**
 * Default share of a file's records that may be rejected. A `--dirty` generated export rejects
 * 0.2–1.1% per file (defects plus the orphans they cascade into; measured at 500–20,000 products); an export missing half its
 * products rejects ~50% of its features and styles as orphans.
 */
export const DEFAULT_MAX_REJECT_RATIO = 0.05;
/**
 * Share of the served catalog's rows a new catalog may lose (`--allow-shrink` overrides): 10% of
 * the products, 25% of any other table (child tables vary more between exports of similar size;
 * a child file cut in half still stands out).
 */
const MAX_SHRINK: Record<string, number> = { products: 0.1 };
const MAX_CHILD_SHRINK = 0.25;

export interface GuardOptions {
  /** Most records of one file that may be rejected, as a share of the records read (0–1). */
  readonly maxRejectRatio?: number;
  /** Let a table end up much smaller than in the served catalog. */
  readonly allowShrink?: boolean;
}

/** Why the swap was refused: one entry per file or table that tripped a guard. */
export type GuardTrip =
  | {
      readonly guard: 'max-reject-ratio';
      readonly file: string;
      readonly table: TableName;
      readonly rejected: number;
      readonly read: number;
      readonly ratio: number;
      readonly limit: number;
    }
  | {
      readonly guard: 'shrink';
      readonly file: string;
      readonly table: TableName;
      readonly loaded: number;
      readonly served: number;
      readonly ratio: number;
      readonly limit: number;
    };

/** Thrown when the new catalog is implausible; the served catalog stays as it is. */
export class LoadRefusedError extends Error {
  constructor(readonly trips: readonly GuardTrip[]) {
    super(`refused to swap the new catalog into service:\n${trips.map(describeTrip).join('\n')}`);
  }
}

export function describeTrip(trip: GuardTrip): string {
  if (trip.guard === 'max-reject-ratio') {
    return `  ${trip.file}: ${trip.rejected} of ${trip.read} records rejected (${percent(trip.ratio)} > --max-reject-ratio ${trip.limit})`;
  }
  return `  ${trip.table}: ${trip.loaded} rows would replace ${trip.served} (${percent(trip.ratio)} of the served catalog; pass --allow-shrink if that is intended)`;
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/** Files that rejected a larger share of their records than allowed. */
export function rejectRatioTrips(files: readonly FileLoadReport[], limit = DEFAULT_MAX_REJECT_RATIO): GuardTrip[] {
  return files.flatMap((file) => {
    const ratio = file.records.read === 0 ? 0 : file.records.rejected / file.records.read;
    return ratio > limit
      ? [
          {
            guard: 'max-reject-ratio',
            file: file.file,
            table: file.table,
            rejected: file.records.rejected,
            read: file.records.read,
            ratio,
            limit,
          } as const,
        ]
      : [];
  });
}

/**
 * Tables that would lose more than their MAX_SHRINK of the served catalog's rows. Row counts of the
 * served catalog come from the planner statistics its own load left (exact counts when it has
 * none), so the check costs no scan of millions of rows.
 */
export async function shrinkTrips(client: pg.ClientBase, files: readonly FileLoadReport[]): Promise<GuardTrip[]> {
  const served = await servedRowCounts(client);
  return files.flatMap((file) => {
    const before = served.get(file.table) ?? 0;
    if (before === 0) return [];
    const ratio = file.records.loaded / before;
    const limit = 1 - (MAX_SHRINK[file.table] ?? MAX_CHILD_SHRINK);
    return ratio < limit
      ? [{ guard: 'shrink', file: file.file, table: file.table, loaded: file.records.loaded, served: before, ratio, limit } as const]
      : [];
  });
}

async function servedRowCounts(client: pg.ClientBase): Promise<Map<string, number>> {
  const { rows } = await client.query<{ table: string; estimate: number }>(
    `SELECT c.relname AS table, c.reltuples::float8 AS estimate
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')`,
    [SERVING_SCHEMA],
  );
  const counts = new Map<string, number>();
  for (const { table, estimate } of rows) {
    // reltuples is -1 for a table never analysed (a catalog not made by this loader).
    if (estimate >= 0) counts.set(table, Math.round(estimate));
    else {
      const exact = await client.query<{ count: string }>(
        `SELECT count(*) AS count FROM ${client.escapeIdentifier(SERVING_SCHEMA)}.${client.escapeIdentifier(table)}`,
      );
      counts.set(table, Number(exact.rows[0]!.count));
    }
  }
  return counts;
}

/** Every guard the new catalog trips, given the options. */
export async function plausibilityTrips(
  client: pg.ClientBase,
  files: readonly FileLoadReport[],
  options: GuardOptions,
): Promise<GuardTrip[]> {
  const trips = rejectRatioTrips(files, options.maxRejectRatio ?? DEFAULT_MAX_REJECT_RATIO);
  if (!options.allowShrink) trips.push(...(await shrinkTrips(client, files)));
  return trips;
}
