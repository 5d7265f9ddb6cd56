import pg from 'pg';
import { readConstraintStatements } from '@catalog/contract';
import type { TableName } from '../catalog-files.js';
import { backendPid } from './build-cleanup.js';

/** `ALTER TABLE t`, `REFERENCES t`, `ON t (` or `ON t USING gin (` (an index; not `ON DELETE`). */
const TABLE_MENTION = /\b(?:ALTER TABLE\s+(\w+)|REFERENCES\s+(\w+)|ON\s+(\w+)\s*(?:USING\s+\w+\s*)?\()/gi;

interface PendingStatement {
  readonly sql: string;
  readonly tables: ReadonlySet<string>;
}

/**
 * Builds the keys and indexes of constraints.sql on a second connection while later files are
 * still streaming: each statement runs as soon as every table it names is loaded (a foreign
 * key waits for both of its tables). Same statements as a build after the load, less wall time.
 */
export class ConstraintBuilder {
  private pending: PendingStatement[] = [];
  private readonly loaded = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private failure: unknown;

  private constructor(
    private readonly client: pg.Client,
    /** The server process of this connection, so an interrupted load can end it. */
    readonly backendPid: number,
  ) {}

  static async open(databaseUrl: string, schema: string): Promise<ConstraintBuilder> {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: 'catalog-loader indexes' });
    // Ended on purpose when a load stops early; the statement in flight rejects anyway.
    client.on('error', () => {});
    await client.connect();
    let builder: ConstraintBuilder;
    try {
      builder = new ConstraintBuilder(client, await backendPid(client));
      await client.query(`SET maintenance_work_mem = '256MB'`);
      await client.query(`SET search_path TO ${client.escapeIdentifier(schema)}`);
      builder.pending = (await readConstraintStatements()).map((sql) => ({
        sql,
        tables: new Set([...sql.matchAll(TABLE_MENTION)].map((match) => (match[1] ?? match[2] ?? match[3])!.toLowerCase())),
      }));
    } catch (error) {
      await client.end();
      throw error;
    }
    return builder;
  }

  /** Starts, in the background, every statement whose tables are now all loaded. */
  tableLoaded(table: TableName): void {
    this.loaded.add(table);
    const ready = this.pending.filter((statement) => [...statement.tables].every((name) => this.loaded.has(name)));
    this.pending = this.pending.filter((statement) => !ready.includes(statement));
    for (const { sql } of ready) {
      this.queue = this.queue
        .then(async () => {
          if (this.failure === undefined) await this.client.query(sql);
        })
        .catch((error: unknown) => {
          this.failure ??= error;
        });
    }
  }

  /** Waits for every statement; fails if one failed or one never became runnable. */
  async finish(): Promise<void> {
    await this.queue;
    if (this.failure !== undefined) throw this.failure;
    if (this.pending.length > 0) {
      throw new Error(`constraints never became runnable: ${this.pending.map((statement) => statement.sql).join('; ')}`);
    }
  }

  async close(): Promise<void> {
    await this.queue;
    await this.client.end();
  }
}
