import type { TableName } from '../catalog-files.js';
import type { LeftoverSchema } from './build-cleanup.js';
import type { GuardTrip } from './plausibility-guards.js';

/** What happened to one input file. Lines and records reconcile exactly; see the README. */
export interface FileLoadReport {
  readonly file: string;
  readonly table: TableName;
  readonly bytes: number;
  /** Physical lines: read = header + loaded + rejected. */
  readonly lines: { read: number; header: number; loaded: number; rejected: number };
  /** CSV records (a quoted newline makes one record span several lines): read = loaded + rejected. */
  readonly records: { read: number; loaded: number; rejected: number };
  readonly rejectedByReason: Record<string, number>;
  /** Repairs applied to records that loaded, by kind (and whole-file repairs: byte order mark, CRLF). */
  readonly repairs: Record<string, number>;
  readonly seconds: number;
}

export interface LoadReport {
  /**
   * swapped: the new catalog is served; refused: a plausibility guard stopped it, the old one is
   * served; unchanged: the served catalog came from the same source (--skip-if-source-unchanged).
   */
  readonly outcome: 'swapped' | 'refused' | 'unchanged';
  /** With outcome "refused": every guard that tripped, with its numbers. */
  readonly refusedBy?: readonly GuardTrip[];
  /** Schemas an earlier killed load left behind, dropped by this one before it started. */
  readonly leftoversDropped: readonly LeftoverSchema[];
  readonly dataDir: string;
  readonly schema: string;
  readonly rejectsFile: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly seconds: number;
  /** Wall time of the phases: streaming the files (keys and indexes build alongside), then
   * waiting for the last keys/indexes plus statistics, then the swap. */
  readonly phases: { copySeconds: number; constraintsSeconds: number; swapSeconds: number };
  readonly files: FileLoadReport[];
  readonly totals: { linesRead: number; recordsLoaded: number; recordsRejected: number };
}

/** Adds one to a counter in a by-name tally. */
export function tally(counts: Record<string, number>, name: string, amount = 1): void {
  counts[name] = (counts[name] ?? 0) + amount;
}
