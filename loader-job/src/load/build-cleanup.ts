import pg from 'pg';
import type { Logger } from 'pino';

/** The server process id of a connection, so an interrupted load can end its own statements. */
export async function backendPid(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return rows[0]!.pid;
}

async function withFreshClient<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'catalog-loader cleanup' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Ends the load's own server processes from a separate connection. A COPY or an index build
 * only notices a closed client socket when its statement ends, which can be minutes at 1M
 * products; terminating them releases their locks at once, so the build schema can be dropped.
 */
export async function terminateBackends(databaseUrl: string, pids: readonly number[]): Promise<void> {
  await withFreshClient(databaseUrl, (client) => client.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]));
}

/**
 * Drops a build schema that will never be served, on a fresh connection (the load's own may be
 * dead or inside an aborted transaction). Where even that fails, says what is left and its
 * size; the next load drops it.
 */
export async function dropBuildSchema(databaseUrl: string, schema: string, logger: Logger): Promise<void> {
  try {
    await withFreshClient(databaseUrl, (client) => client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`));
    logger.info({ schema }, 'dropped the build schema of the unfinished load');
  } catch (error) {
    logger.error({ err: error, schema }, `could not drop the build schema ${schema}; it is left behind until the next load drops it`);
  }
}

export interface LeftoverSchema {
  readonly schema: string;
  readonly bytes: number;
}

/** Sizes of the given schemas (what a killed load left), before they are dropped. */
export async function schemaSizes(client: pg.ClientBase, schemas: readonly string[]): Promise<LeftoverSchema[]> {
  if (schemas.length === 0) return [];
  const { rows } = await client.query<{ schema: string; bytes: string }>(
    `SELECT n.nspname AS schema, coalesce(sum(pg_total_relation_size(c.oid)) FILTER (WHERE c.relkind IN ('r', 'p', 'm')), 0) AS bytes
       FROM pg_namespace n LEFT JOIN pg_class c ON c.relnamespace = n.oid
      WHERE n.nspname = ANY($1)
      GROUP BY n.nspname ORDER BY n.nspname`,
    [schemas],
  );
  return rows.map((row) => ({ schema: row.schema, bytes: Number(row.bytes) }));
}
