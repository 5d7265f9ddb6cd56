// The benchmark's Postgres ceiling runs the gateway's own statements through pgbench: here against
// a real catalog, so a statement the repositories change into something pgbench cannot prepare,
// or that fails, shows up before a benchmark run does.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { postgresCeiling } from '../bench/postgres-ceiling.js';
import { createFixtureDatabase, withClient } from './support/gateway.js';

test("the Postgres ceiling serves the cold mix with the repositories' statements, without errors", async () => {
  const databaseUrl = await createFixtureDatabase();
  const ids = await withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ min: string; max: string }>('SELECT min(id), max(id) FROM catalog.products');
    return { min: Number(rows[0]!.min), max: Number(rows[0]!.max) };
  });
  const workDir = await mkdtemp(join(tmpdir(), 'postgres-ceiling-'));
  try {
    const ceiling = await postgresCeiling(databaseUrl, ids, workDir);
    const scripts = (await readdir(workDir)).filter((file) => file.endsWith('.sql')).sort();
    assert.deepEqual(scripts, ['list.sql', 'product.sql', 'related.sql', 'styles.sql']);
    assert.match(
      await readFile(join(workDir, 'styles.sql'), 'utf8'),
      /FROM catalog\.products p WHERE p\.id = ANY\(ARRAY\[:id\]::bigint\[\]\)/,
    );
    const result = await ceiling.run(1);
    assert.equal(result.errors, 0);
    assert.ok(result.requests > 0, `pgbench ran ${result.requests} transactions`);
    assert.ok(result.p50Ms > 0 && result.p50Ms <= result.p99Ms, `latencies ${result.p50Ms} ≤ ${result.p99Ms} ms`);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
});
