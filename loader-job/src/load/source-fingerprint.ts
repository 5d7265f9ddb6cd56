import type pg from 'pg';
import { SERVING_SCHEMA } from '@catalog/contract';

/**
 * What catalog source the served catalog was loaded from. The chart passes a fingerprint of its
 * catalog-source values on every install and upgrade; a load whose fingerprint matches the served
 * catalog's is skipped, so an upgrade that only bumps an image or a setting keeps the catalog —
 * and every write made through the API since the last load.
 */
const TABLE = 'catalog_source';

/** The fingerprint the served catalog was loaded with, if any. */
export async function servedFingerprint(client: pg.ClientBase): Promise<string | undefined> {
  const qualified = `${client.escapeIdentifier(SERVING_SCHEMA)}.${TABLE}`;
  const { rows } = await client.query<{ present: string | null }>('SELECT to_regclass($1) AS present', [qualified]);
  if (!rows[0]?.present) return undefined;
  const found = await client.query<{ fingerprint: string | null }>(`SELECT fingerprint FROM ${qualified} LIMIT 1`);
  return found.rows[0]?.fingerprint ?? undefined;
}

/** Records, inside the schema about to be swapped in, which source it was loaded from. */
export async function recordFingerprint(client: pg.ClientBase, schema: string, fingerprint: string | undefined): Promise<void> {
  const qualified = `${client.escapeIdentifier(schema)}.${TABLE}`;
  await client.query(`CREATE TABLE ${qualified} (fingerprint text, loaded_at timestamptz NOT NULL DEFAULT now())`);
  await client.query(`INSERT INTO ${qualified} (fingerprint) VALUES ($1)`, [fingerprint ?? null]);
}
