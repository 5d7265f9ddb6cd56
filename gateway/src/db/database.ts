import { hash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { CAPTURE_ORIGIN_SETTING, GATEWAY_ORIGIN } from '@catalog/contract';
import type { Logger } from 'pino';
import { AdmissionGate } from './admission.js';
import { ServiceUnavailableError } from '../errors.js';
import { DatabaseBusyError, toAvailabilityError } from './availability.js';

export interface DatabaseOptions {
  /** The target's name: `primary`, `replica-1`, … */
  name: string;
  url: string;
  poolMax: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  /** Statements that may wait for a connection, and the longest expected wait admitted. */
  maxQueue: number;
  maxQueueWaitMs: number;
  onAdmissionReject: (reason: 'queue full' | 'wait too long') => void;
  /**
   * The server failed a statement or dropped an idle connection (down, reset, timed out): not
   * called when this process's own limits refused a statement, which says nothing of the server.
   */
  onUnavailable: (failed: 'statement' | 'connection') => void;
  /**
   * The gateway announces this pool's writes itself: its sessions say so, and the change-capture
   * triggers skip them (README, "Consistency", rule 11). The primary's only: replicas take no
   * writes, and a pooler in front of them may refuse the startup option.
   */
  announcesOwnWrites?: boolean;
  logger: Logger;
}

const INT8_OID = 20;

// Catalog ids are bigint columns but JSON numbers on the wire; refuse loudly rather than round.
function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} does not fit a JSON number`);
  return value;
}

/**
 * Most SQL texts prepared (named) on a connection. The listing's texts are finite but many
 * (sorts × filters × page sizes × column sets), and each prepared one holds memory in every
 * pooled backend until the connection closes: texts beyond these run unnamed, planned per use.
 */
export const MAX_PREPARED_STATEMENTS = 100;
const statementNames = new Map<string, string>();

/** A stable prepared-statement name per SQL text, for the first MAX_PREPARED_STATEMENTS texts; undefined: run it unnamed. */
function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (!name && statementNames.size < MAX_PREPARED_STATEMENTS) {
    statementNames.set(text, (name = `catalog_${hash('sha1', text, 'hex').slice(0, 16)}`));
  }
  return name;
}

const typeOverrides = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** What a repository needs of a database: statements in, rows out (the benchmark's Postgres ceiling records them). */
export type Queryable = Pick<Database, 'query'>;

/**
 * The one way the gateway talks to Postgres: a bounded pool whose waits, statements and idle
 * transactions all time out, and whose availability failures become 503s. Every statement sent
 * is announced on `statements` (metrics and tests count them).
 */
export class Database {
  readonly name: string;
  readonly pool: pg.Pool;
  readonly statements = new EventEmitter<{ statement: [text: string] }>();
  private readonly admission: AdmissionGate;

  constructor(private readonly options: DatabaseOptions) {
    this.name = options.name;
    this.admission = new AdmissionGate({
      concurrency: options.poolMax,
      maxQueue: options.maxQueue,
      maxWaitMs: options.maxQueueWaitMs,
      onReject: options.onAdmissionReject,
    });
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolMax,
      connectionTimeoutMillis: options.acquireTimeoutMs,
      idleTimeoutMillis: 30_000,
      statement_timeout: options.statementTimeoutMs,
      idle_in_transaction_session_timeout: options.statementTimeoutMs * 2,
      // Client-side backstop in case the server stops answering altogether.
      query_timeout: options.statementTimeoutMs + 1_000,
      application_name: 'catalog-gateway',
      ...(options.announcesOwnWrites && { options: `-c ${CAPTURE_ORIGIN_SETTING}=${GATEWAY_ORIGIN}` }),
      keepAlive: true,
      types: typeOverrides,
    });
    // An idle client losing its server must not crash the process; the pool drops it.
    this.pool.on('error', (error) => {
      options.logger.warn(
        { target: options.name, code: (error as { code?: string }).code, reason: error.message },
        'idle database client failed',
      );
      options.onUnavailable('connection');
    });
  }

  /** Statements running or waiting for a connection here. */
  get load(): number {
    return this.admission.load;
  }

  async query<Row>(text: string, values: readonly unknown[] = []): Promise<Row[]> {
    this.statements.emit('statement', text);
    try {
      // Named, so each connection parses and plans a statement once and reuses the plan
      // (Postgres re-resolves the names if the catalog schema is swapped underneath).
      const result = await this.admission.run(() => this.send({ name: statementName(text), text, values: values as unknown[] }));
      return result.rows as Row[];
    } catch (error) {
      const failure = toAvailabilityError(error, this.options.acquireTimeoutMs);
      if (failure instanceof ServiceUnavailableError && !(failure instanceof DatabaseBusyError)) this.options.onUnavailable('statement');
      throw failure;
    }
  }

  /** Sends one statement on a pooled connection. */
  protected send(statement: pg.QueryConfig): Promise<pg.QueryResult> {
    return this.pool.query(statement);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
