import pg from 'pg';
import { CATALOG_FILES } from '../src/catalog-files.js';

/**
 * What a catalog serves, independent of when it was loaded: per table, the row count and an
 * md5 over every row (all columns but the load-time timestamps), in id order.
 */
export async function catalogFingerprint(databaseUrl: string, schema = 'catalog'): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const fingerprint: Record<string, string> = {};
    for (const { table } of CATALOG_FILES) {
      const { rows } = await client.query<{ count: string; digest: string }>(
        `SELECT count(*) AS count,
                md5(string_agg((to_jsonb(t) - 'created_at' - 'updated_at')::text, E'\\n' ORDER BY t.id)) AS digest
           FROM ${client.escapeIdentifier(schema)}.${table} AS t`,
      );
      fingerprint[table] = `${rows[0]!.count}:${rows[0]!.digest}`;
    }
    return fingerprint;
  } finally {
    await client.end();
  }
}

/**
 * The catalog in service and schemas whose names show a loader build or a retired catalog (not
 * the change log's `catalog_capture`, which outlives every load).
 */
export async function loaderSchemas(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT nspname AS name FROM pg_namespace
        WHERE nspname = 'catalog' OR starts_with(nspname, 'catalog_load_') OR starts_with(nspname, 'catalog_old_') ORDER BY 1`,
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}
