import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { CHANGE_LOG_TABLE } from '@catalog/contract';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';

const silent = pino({ level: 'silent' });

/** The capture triggers on each catalog table of `schema`, as "table:trigger" names. */
const captureTriggers = (client: pg.Client, schema: string) =>
  client
    .query<{ name: string }>(
      `SELECT c.relname || ':' || t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND t.tgname LIKE 'capture_%' ORDER BY 1`,
      [schema],
    )
    .then(({ rows }) => rows.map((row) => row.name));

test('the catalog swapped in captures changes made in SQL; the bulk load into the build schema paid no trigger', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'loader-capture-'));
  await generateCatalog({ outDir: dataDir, products: 100, seed: 4 });
  const databaseUrl = await createTestDatabase('loader_capture');

  const report = await loadCatalog({ databaseUrl, dataDir, skipIfSourceUnchanged: 'source-a', logger: silent });
  assert.equal(report.outcome, 'swapped');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const triggers = await captureTriggers(client, 'catalog');
    assert.equal(triggers.length, 6 * 6, `capture triggers on the six tables: ${triggers.join(', ')}`);
    // Those for replica mode (logical replication's apply, session_replication_role = replica) fire only there.
    const { rows: replicaMode } = await client.query<{ enabled: string }>(
      `SELECT DISTINCT t.tgenabled AS enabled FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'catalog' AND t.tgname LIKE 'capture_replicated_%'`,
    );
    assert.deepEqual(
      replicaMode.map((row) => row.enabled),
      ['R'],
    );
    // The load itself recorded nothing: its rows went in before the triggers existed.
    assert.equal(Number((await client.query(`SELECT count(*) AS n FROM ${CHANGE_LOG_TABLE}`)).rows[0].n), 0);
    await client.query(`UPDATE catalog.products SET slogan = 'by hand' WHERE id = 7`);
    const { rows } = await client.query<{ product_ids: string[] }>(`SELECT product_ids FROM ${CHANGE_LOG_TABLE}`);
    assert.deepEqual(
      rows.map((row) => row.product_ids),
      [['7']],
    );
    // A catalog swapped in before capture existed: the next run that keeps it installs it.
    await client.query(`DROP TRIGGER capture_update ON catalog.products`);
    const unchanged = await loadCatalog({ databaseUrl, dataDir, skipIfSourceUnchanged: 'source-a', logger: silent });
    assert.equal(unchanged.outcome, 'unchanged');
    assert.equal((await captureTriggers(client, 'catalog')).length, 6 * 6);
  } finally {
    await client.end();
  }
});
