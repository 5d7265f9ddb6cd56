import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import type { LoadReport } from '../src/load/load-report.js';
import type { RejectedRecord } from '../src/load/rejects-writer.js';
import { runLoaderCli } from './loader-process.js';

/** Physical lines as any line-counting tool sees them: LF-terminated lines plus an unterminated last one. */
function physicalLines(text: string): number {
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') || text === '' ? newlines : newlines + 1;
}

test('catalog-loader generate --dirty then load: every line is loaded or rejected, and the report reconciles', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-cli-'));
  const dataDir = join(dir, 'export');
  const reportFile = join(dir, 'report.json');
  const generated = await runLoaderCli(['generate', '--out', dataDir, '--products', '3000', '--dirty']);
  assert.equal(generated.code, 0, generated.output);

  const databaseUrl = await createTestDatabase('loader_cli');
  const loaded = await runLoaderCli(['load', '--data', dataDir, '--report', reportFile], { DATABASE_URL: databaseUrl });
  assert.equal(loaded.code, 0, loaded.output);

  const report = JSON.parse(await readFile(reportFile, 'utf8')) as LoadReport;
  assert.equal(report.rejectsFile, join(dir, 'report.rejects.ndjson'));
  const rejects = (await readFile(report.rejectsFile, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RejectedRecord);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const file of report.files) {
      const text = await readFile(join(dataDir, file.file), 'utf8');
      assert.equal(file.lines.read, physicalLines(text), `${file.file}: every physical line was read`);
      assert.equal(file.lines.read, file.lines.header + file.lines.loaded + file.lines.rejected, `${file.file}: lines reconcile`);
      assert.equal(file.records.read, file.records.loaded + file.records.rejected, `${file.file}: records reconcile`);
      const byReason = Object.values(file.rejectedByReason).reduce((sum, count) => sum + count, 0);
      assert.equal(byReason, file.records.rejected, `${file.file}: reasons add up`);
      const fileRejects = rejects.filter((reject) => reject.file === file.file);
      assert.equal(fileRejects.length, file.records.rejected, `${file.file}: each rejected record is in the rejects file`);
      const rejectedLines = fileRejects.reduce((sum, reject) => sum + (reject.endLine ?? reject.line) - reject.line + 1, 0);
      assert.equal(rejectedLines, file.lines.rejected, `${file.file}: rejected lines`);
      const { rows } = await db.query<{ count: string }>(`SELECT count(*) FROM catalog.${file.table}`);
      assert.equal(Number(rows[0]!.count), file.records.loaded, `${file.file}: every loaded record is in the table`);
    }
  } finally {
    await db.end();
  }

  const reasons = new Set(rejects.map((reject) => reject.reason));
  for (const reason of [
    'not a number',
    'negative number',
    'missing value',
    'duplicate id',
    'orphan product_id',
    'orphan style_id',
    'orphan related_product_id',
    'related id 0',
    'wrong column count',
    'malformed quoting',
    'unterminated quote',
    'blank line',
    'not a boolean',
  ]) {
    assert.ok(reasons.has(reason), `the dirty export holds a "${reason}" defect`);
  }
  const repairs = new Set(report.files.flatMap((file) => Object.keys(file.repairs)));
  for (const repair of ['byte order mark', 'crlf line end', 'trimmed whitespace', 'null literal', 'empty extra columns']) {
    assert.ok(repairs.has(repair), `the dirty export needs a "${repair}" repair`);
  }
});

test('catalog-loader load without a database names the problem', async () => {
  const result = await runLoaderCli(['load', '--data', '/nonexistent'], { DATABASE_URL: '' });
  assert.notEqual(result.code, 0);
  assert.match(result.output, /no database: pass --database-url or set DATABASE_URL/);
});
