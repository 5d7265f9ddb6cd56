import type pg from 'pg';
import { ServiceUnavailableError } from '../errors.js';
import { isRecoveryConflict } from './availability.js';
import { Database, type DatabaseOptions } from './database.js';
import { serverOf } from './server-identity.js';

/** Why a statement meant for a replica ran on the primary. */
export type StatementFallback = 'left_rotation' | 'replica_failed' | 'another_server';

export interface ReplicaDatabaseOptions extends DatabaseOptions {
  primary: Database;
  /** Whether the replica may serve reads now. */
  inRotation: () => boolean;
  /** The server the replica's position polls reach (server-identity.ts): the one its positions describe. */
  polledServer: () => string | undefined;
  onFallback: (reason: StatementFallback) => void;
}

/** A pooled connection reached another server than the one the position polls reach. */
class AnotherServer extends Error {
  constructor(
    readonly reached: string,
    readonly polled: string | undefined,
  ) {
    super(`connection reached ${reached}, positions are polled on ${polled ?? 'no server yet'}`);
  }
}

/**
 * A replica's pool, whose statements never fail because of the replica: one it cannot serve
 * (down, reset, timed out, cancelled by a replay conflict, no room in this process's queue for
 * it) is run again on the primary, and while the replica is out of the rotation its statements
 * go straight to the primary. A read from the primary is never older than one from a replica,
 * so whoever picked this replica gets what it was promised. (`onUnavailable`, called for
 * failures of the server itself, takes the replica out of the rotation.)
 *
 * Its statements run only on connections to the server its position polls reach: behind a
 * load-balanced address another connection may reach another replica, further behind than the
 * polled position says (gateway/README.md, "Consistency", rule 8). A connection to another server
 * is closed and its statement run on the primary, so the pool comes to hold connections to the
 * polled server only.
 */
export class ReplicaDatabase extends Database {
  /** Pairs of servers (reached, polled) already logged. */
  private readonly told = new Set<string>();

  constructor(private readonly replica: ReplicaDatabaseOptions) {
    super(replica);
  }

  override async query<Row>(text: string, values: readonly unknown[] = []): Promise<Row[]> {
    if (!this.replica.inRotation()) return this.onPrimary('left_rotation', text, values);
    try {
      return await super.query<Row>(text, values);
    } catch (error) {
      if (error instanceof AnotherServer) {
        this.tell(error);
        return this.onPrimary('another_server', text, values);
      }
      if (!(error instanceof ServiceUnavailableError) && !isRecoveryConflict(error)) throw error;
      return this.onPrimary('replica_failed', text, values);
    }
  }

  protected override async send(statement: pg.QueryConfig): Promise<pg.QueryResult> {
    const client = await this.pool.connect();
    let failure: Error | undefined;
    // As the pool's own query does: an error the connection emits while it is out of the pool
    // (its server went away) is this statement's, and the connection is not reused.
    const onError = (error: Error) => {
      failure ??= error;
    };
    client.on('error', onError);
    try {
      const known = serverOf(client);
      const reached = typeof known === 'string' ? known : await known;
      const polled = this.replica.polledServer();
      if (reached !== polled) throw new AnotherServer(reached, polled);
      return await client.query(statement);
    } catch (error) {
      // As the pool's own query does: a connection a statement failed on is not reused.
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(failure);
    }
  }

  private tell({ reached, polled }: AnotherServer): void {
    const pair = `${reached} ${polled}`;
    if (polled === undefined || this.told.has(pair)) return;
    this.told.add(pair);
    this.replica.logger.warn(
      { target: this.name, reached, polled },
      "a replica URL reached another server than the one its positions are polled on (a load-balanced address): its statements run on the primary, and the connection is closed, until the pool holds the polled server's only; list each replica's own address to read them all",
    );
  }

  private onPrimary<Row>(reason: StatementFallback, text: string, values: readonly unknown[]): Promise<Row[]> {
    this.replica.onFallback(reason);
    return this.replica.primary.query<Row>(text, values);
  }
}
