import { ServiceUnavailableError } from '../errors.js';
import { isRecoveryConflict } from './availability.js';
import { Database, type DatabaseOptions } from './database.js';

/** Why a statement meant for a replica ran on the primary. */
export type StatementFallback = 'left_rotation' | 'replica_failed';

export interface ReplicaDatabaseOptions extends DatabaseOptions {
  primary: Database;
  /** Whether the replica may serve reads now. */
  inRotation: () => boolean;
  onFallback: (reason: StatementFallback) => void;
}

/**
 * A replica's pool, whose statements never fail because of the replica: one it cannot serve
 * (down, reset, timed out, cancelled by a replay conflict, no room in this process's queue for
 * it) is run again on the primary, and while the replica is out of the rotation its statements
 * go straight to the primary. A read from the primary is never older than one from a replica,
 * so whoever picked this replica gets what it was promised. (`onUnavailable`, called for
 * failures of the server itself, takes the replica out of the rotation.)
 */
export class ReplicaDatabase extends Database {
  constructor(private readonly replica: ReplicaDatabaseOptions) {
    super(replica);
  }

  override async query<Row>(text: string, values: readonly unknown[] = []): Promise<Row[]> {
    if (!this.replica.inRotation()) return this.onPrimary('left_rotation', text, values);
    try {
      return await super.query<Row>(text, values);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableError) && !isRecoveryConflict(error)) throw error;
      return this.onPrimary('replica_failed', text, values);
    }
  }

  private onPrimary<Row>(reason: StatementFallback, text: string, values: readonly unknown[]): Promise<Row[]> {
    this.replica.onFallback(reason);
    return this.replica.primary.query<Row>(text, values);
  }
}
