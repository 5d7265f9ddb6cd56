import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { addCatalogConstraints, createCatalogSchema, SERVING_SCHEMA } from '@catalog/contract';
import { CATALOG_FILES } from '../src/catalog-files.js';

/**
 * The baseline: Postgres's own CSV COPY of the clean files straight into unindexed tables,
 * then the very same key and index builds the loader runs. No checks, no quarantine, no swap.
 */
export async function rawCopy(databaseUrl: string, dataDir: string): Promise<{ rows: number; copySeconds: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`SET maintenance_work_mem = '256MB'`);
    await client.query('SET synchronous_commit = off');
    await client.query('BEGIN');
    await createCatalogSchema(client, SERVING_SCHEMA, { withConstraints: false });
    await client.query('COMMIT');
    let rows = 0;
    const startedAt = performance.now();
    for (const spec of CATALOG_FILES) {
      const columns = spec.columns.map((column) => column.column).join(', ');
      const copy = copyFrom(`COPY ${SERVING_SCHEMA}.${spec.table} (${columns}) FROM STDIN WITH (FORMAT csv, HEADER true, NULL 'null')`);
      await pipeline(createReadStream(join(dataDir, spec.file), { highWaterMark: 1 << 20 }), client.query(copy));
      rows += copy.rowCount;
    }
    const copySeconds = (performance.now() - startedAt) / 1000;
    await addCatalogConstraints(client, SERVING_SCHEMA);
    return { rows, copySeconds };
  } finally {
    await client.end();
  }
}
