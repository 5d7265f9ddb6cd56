import { readFile } from 'node:fs/promises';
import type { ClientBase } from 'pg';

/**
 * The DDL files of the catalog (schema.sql: tables; constraints.sql: keys and indexes;
 * capture.sql and capture-triggers.sql: change capture, change-capture.ts).
 */
const sqlDir = new URL('../sql/', import.meta.url);

export async function readSql(name: 'schema.sql' | 'constraints.sql' | 'capture.sql' | 'capture-triggers.sql'): Promise<string> {
  return readFile(new URL(name, sqlDir), 'utf8');
}

/**
 * Creates the catalog tables (and, with `withConstraints`, keys and indexes) inside `schemaName`.
 * Runs inside the caller's transaction (it sets a transaction-local search_path).
 */
export async function createCatalogSchema(
  client: ClientBase,
  schemaName: string,
  { withConstraints }: { withConstraints: boolean },
): Promise<void> {
  const ident = client.escapeIdentifier(schemaName);
  await client.query(`CREATE SCHEMA ${ident}`);
  await client.query(`SET LOCAL search_path TO ${ident}`);
  await client.query(await readSql('schema.sql'));
  if (withConstraints) await client.query(await readSql('constraints.sql'));
}

/** The statements of constraints.sql, one per entry (comments dropped). */
export async function readConstraintStatements(): Promise<string[]> {
  const sql = await readSql('constraints.sql');
  return sql
    .replace(/--.*$/gm, '')
    .split(';')
    .map((statement) => statement.trim())
    .filter((statement) => statement !== '');
}

/** Builds the keys and indexes of constraints.sql over tables already filled in `schemaName`. */
export async function addCatalogConstraints(client: ClientBase, schemaName: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL search_path TO ${client.escapeIdentifier(schemaName)}`);
    await client.query(await readSql('constraints.sql'));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
