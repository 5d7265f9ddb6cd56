import type pg from 'pg';
import type { Logger } from 'pino';
import { CATALOG_SWAPPED_CHANNEL, SERVING_SCHEMA, createCatalogSchema, installChangeCapture } from '@catalog/contract';
import { CATALOG_FILES } from '../catalog-files.js';
import { schemaSizes, type LeftoverSchema } from './build-cleanup.js';

/** Held for a whole load so two loaders never build or swap at the same time. */
const LOADER_LOCK_KEY = 0x6361_7461; // "cata"
const BUILD_PREFIX = `${SERVING_SCHEMA}_load_`;
const RETIRED_PREFIX = `${SERVING_SCHEMA}_old_`;

/** Waits for any other loader to finish; the session lock dies with a killed loader's connection. */
export async function takeLoaderLock(client: pg.ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [LOADER_LOCK_KEY]);
}

/**
 * Drops schemas a killed run (SIGKILL, a lost node) left behind: half-built copies and retired
 * catalogs never dropped. Returns what it found, with sizes, for the log and the report.
 */
export async function dropLeftoverSchemas(client: pg.ClientBase): Promise<LeftoverSchema[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1) OR starts_with(nspname, $2)`,
    [BUILD_PREFIX, RETIRED_PREFIX],
  );
  const leftovers = await schemaSizes(
    client,
    rows.map((row) => row.name),
  );
  for (const { schema } of leftovers) await client.query(`DROP SCHEMA ${client.escapeIdentifier(schema)} CASCADE`);
  return leftovers;
}

/** Creates the empty, unindexed tables of a fresh build schema and returns its name. */
export async function createBuildSchema(client: pg.ClientBase): Promise<string> {
  const name = `${BUILD_PREFIX}${Date.now()}`;
  await client.query('BEGIN');
  await createCatalogSchema(client, name, { withConstraints: false });
  await client.query('COMMIT');
  return name;
}

/**
 * Makes the (keyed and indexed) build schema ready to serve: identity sequences moved past the
 * loaded ids so the gateway's inserts don't collide, and planner statistics.
 */
export async function prepareForService(client: pg.ClientBase, schema: string): Promise<void> {
  for (const { table } of CATALOG_FILES) {
    const qualified = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table)}`;
    // An empty table keeps its fresh sequence (no row, so no setval).
    await client.query(`SELECT setval(pg_get_serial_sequence($1, 'id'), max(id)) FROM ${qualified} HAVING max(id) IS NOT NULL`, [
      qualified,
    ]);
    await client.query(`ANALYZE ${qualified}`);
  }
}

/**
 * Puts the build schema in service in one transaction: readers see the old catalog until the
 * commit and the new one after it, never neither, and listeners on CATALOG_SWAPPED_CHANNEL hear
 * of it at the commit. The change-capture triggers are created on it in that transaction, after
 * the bulk load (which paid no trigger) and before any other writer can reach it. The retired
 * catalog is dropped afterwards.
 */
export async function swapIntoService(client: pg.ClientBase, buildSchema: string, logger: Logger): Promise<void> {
  const retired = `${RETIRED_PREFIX}${Date.now()}`;
  const { rows } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [SERVING_SCHEMA]);
  await client.query('BEGIN');
  try {
    await installChangeCapture(client, buildSchema);
    if (rows.length > 0) {
      await client.query(`ALTER SCHEMA ${client.escapeIdentifier(SERVING_SCHEMA)} RENAME TO ${client.escapeIdentifier(retired)}`);
    }
    await client.query(`ALTER SCHEMA ${client.escapeIdentifier(buildSchema)} RENAME TO ${client.escapeIdentifier(SERVING_SCHEMA)}`);
    // Delivered on commit only: gateways drop their cached responses exactly when the new catalog is served.
    await client.query('SELECT pg_notify($1, $2)', [CATALOG_SWAPPED_CHANNEL, buildSchema]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  if (rows.length > 0) await dropRetiredCatalog(client, retired, logger);
}

/**
 * The drop waits for readers still inside the retired tables (and, once done, makes prepared
 * statements re-resolve `catalog.*` to the new tables). The new catalog is already served, so
 * a drop that cannot get its locks in time is left to the next load instead of failing this one.
 */
async function dropRetiredCatalog(client: pg.ClientBase, retired: string, logger: Logger): Promise<void> {
  try {
    await client.query(`SET lock_timeout = '60s'`);
    await client.query(`DROP SCHEMA ${client.escapeIdentifier(retired)} CASCADE`);
  } catch (error) {
    logger.warn({ err: error, schema: retired }, 'could not drop the retired catalog yet; the next load will');
  } finally {
    await client.query('RESET lock_timeout');
  }
}

/**
 * Installs change capture on the catalog in service, for a run that keeps it (the source is
 * unchanged): a catalog swapped in before capture existed gains it at the next load.
 */
export async function installCaptureInService(client: pg.ClientBase): Promise<void> {
  await client.query('BEGIN');
  try {
    await installChangeCapture(client, SERVING_SCHEMA);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
