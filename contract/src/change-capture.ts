import type { ClientBase } from 'pg';
import { readSql } from './catalog-ddl.js';

/**
 * Change capture (sql/capture.sql): what the loader installs and the gateway consumes. The names
 * are the ones the SQL uses.
 */

/**
 * NOTIFY channel of the capture triggers: sent at the commit of a captured change whose statement
 * found no older entry waiting (the claimers may be idle); behind one, a claimer is at work already.
 */
export const CATALOG_CHANGED_CHANNEL = 'catalog_changed';

/** The log the triggers write and gateways claim entries from. */
export const CHANGE_LOG_TABLE = 'catalog_capture.changes';

/**
 * A setting a session sets to `gateway` when the gateway announces its writes itself: the
 * triggers then record nothing, so no write is announced twice.
 */
export const CAPTURE_ORIGIN_SETTING = 'catalog_capture.origin';
export const GATEWAY_ORIGIN = 'gateway';

/**
 * Installs the change log and its functions (once per database, idempotent) and the capture
 * triggers on the catalog tables of `schemaName`. Runs inside the caller's transaction (it sets
 * a transaction-local search_path), so a swap installs them atomically with the rename.
 */
export async function installChangeCapture(client: ClientBase, schemaName: string): Promise<void> {
  await client.query(await readSql('capture.sql'));
  await client.query(`SET LOCAL search_path TO ${client.escapeIdentifier(schemaName)}`);
  await client.query(await readSql('capture-triggers.sql'));
}
