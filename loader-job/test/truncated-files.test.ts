import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, truncate, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';
import type { LoadReport } from '../src/load/load-report.js';
import type { RejectedRecord } from '../src/load/rejects-writer.js';
import { catalogFingerprint, loaderSchemas } from './catalog-state.js';
import { runLoaderCli } from './loader-process.js';

const silent = pino({ level: 'silent' });

async function readRejects(file: string): Promise<RejectedRecord[]> {
  const text = await readFile(file, 'utf8');
  return text.trim() === ''
    ? []
    : text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as RejectedRecord);
}

/** Cuts a file to half its bytes, as an interrupted copy leaves it (mid-line). */
async function cutInHalf(path: string): Promise<void> {
  const { size } = await stat(path);
  await truncate(path, Math.floor(size / 2));
}

describe('a truncated export is never swapped into service', () => {
  let dir: string;
  let fullExport: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loader-truncated-'));
    fullExport = join(dir, 'full');
    await generateCatalog({ outDir: fullExport, products: 2_000, seed: 11 });
  });

  /** A database serving the full export, and a copy of the export with one file cut. */
  async function servedCatalogAndCutCopy(name: string, file: string) {
    const databaseUrl = await createTestDatabase(`loader_cut_${name}`);
    await loadCatalog({ databaseUrl, dataDir: fullExport, logger: silent });
    const cutExport = join(dir, name);
    await cp(fullExport, cutExport, { recursive: true });
    await cutInHalf(join(cutExport, file));
    return { databaseUrl, cutExport, served: await catalogFingerprint(databaseUrl) };
  }

  it('product.csv cut in half: refused by the reject-ratio guard (children become orphans), old catalog served', async () => {
    const { databaseUrl, cutExport, served } = await servedCatalogAndCutCopy('products', 'product.csv');
    const reportFile = join(dir, 'products-report.json');
    const result = await runLoaderCli(['load', '--data', cutExport, '--report', reportFile], { DATABASE_URL: databaseUrl });
    assert.equal(result.code, 3, `refused with exit code 3\n${result.output}`);
    assert.match(result.output, /refused to swap/);
    assert.deepEqual(await catalogFingerprint(databaseUrl), served, 'the served catalog is untouched');
    assert.deepEqual(await loaderSchemas(databaseUrl), ['catalog'], 'no build schema is left');

    const report = JSON.parse(await readFile(reportFile, 'utf8')) as LoadReport;
    assert.equal(report.outcome, 'refused');
    const guards = new Set(report.refusedBy!.map((refusal) => refusal.guard));
    assert.ok(guards.has('max-reject-ratio'), `the reject-ratio guard tripped: ${JSON.stringify(report.refusedBy)}`);
    assert.ok(guards.has('shrink'), 'the shrink guard tripped too (half the products)');
    const styles = report.refusedBy!.find((refusal) => refusal.guard === 'max-reject-ratio' && refusal.file === 'styles.csv');
    assert.ok(styles && styles.ratio > 0.3 && styles.limit === 0.05, `styles.csv named with its ratio: ${JSON.stringify(styles)}`);
  });

  it('skus.csv cut in half: refused by the shrink guard, though only one record is rejected', async () => {
    const { databaseUrl, cutExport, served } = await servedCatalogAndCutCopy('skus', 'skus.csv');
    const reportFile = join(dir, 'skus-report.json');
    await assert.rejects(
      loadCatalog({ databaseUrl, dataDir: cutExport, reportFile, logger: silent }),
      /refused to swap.*skus: \d+ rows would replace \d+/s,
    );
    assert.deepEqual(await catalogFingerprint(databaseUrl), served);
    assert.deepEqual(await loaderSchemas(databaseUrl), ['catalog']);
    const report = JSON.parse(await readFile(reportFile, 'utf8')) as LoadReport;
    assert.deepEqual(
      report.refusedBy!.map((refusal) => `${refusal.guard} ${refusal.table}`),
      ['shrink skus'],
    );
    const skus = report.files.find((file) => file.file === 'skus.csv')!;
    assert.equal(skus.records.rejected, 1, 'the cut line is the one rejected record');
    assert.equal(skus.rejectedByReason.truncated, 1);

    // The operator knows better: --allow-shrink lets the same export through.
    await loadCatalog({ databaseUrl, dataDir: cutExport, allowShrink: true, logger: silent });
    assert.notDeepEqual(await catalogFingerprint(databaseUrl), served, 'with --allow-shrink the cut catalog is served');
  });

  it('--max-reject-ratio and --allow-shrink override the guards', async () => {
    const { databaseUrl, cutExport, served } = await servedCatalogAndCutCopy('override', 'product.csv');
    const result = await runLoaderCli(['load', '--data', cutExport, '--max-reject-ratio', '1', '--allow-shrink'], {
      DATABASE_URL: databaseUrl,
    });
    assert.equal(result.code, 0, result.output);
    assert.notDeepEqual(await catalogFingerprint(databaseUrl), served);
  });

  it('a file cut inside its last field: that line is rejected as truncated, never stored as a shorter number', async () => {
    const dataDir = join(dir, 'last-field');
    await cp(fullExport, dataDir, { recursive: true });
    const productFile = join(dataDir, 'product.csv');
    const lines = (await readFile(productFile, 'utf8')).split('\n').filter((line) => line !== '');
    const last = lines.at(-1)!;
    const price = last.split(',').at(-1)!;
    assert.ok(price.length >= 2, `the last price has digits to cut: ${last}`);
    await writeFile(productFile, `${lines.join('\n').slice(0, -1)}`); // the last digit of the last price is gone, no line end
    const lastId = Number(last.split(',')[0]);

    // First load into an empty database: nothing to shrink from, one reject is under the ratio.
    const databaseUrl = await createTestDatabase('loader_cut_last_field');
    const rejectsFile = join(dir, 'last-field.rejects.ndjson');
    const report = await loadCatalog({ databaseUrl, dataDir, rejectsFile, logger: silent });
    assert.equal(report.outcome, 'swapped');
    const rejects = await readRejects(rejectsFile);
    const cut = rejects.find((reject) => reject.file === 'product.csv');
    assert.deepEqual(
      cut && { line: cut.line, reason: cut.reason },
      { line: lines.length, reason: 'truncated' },
      'the last line is rejected with its line number and reason',
    );
    const products = report.files.find((file) => file.file === 'product.csv')!;
    assert.deepEqual(products.records, { read: 2_000, loaded: 1_999, rejected: 1 }, 'every other product loaded');
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id FROM catalog.products WHERE id = $1', [lastId]);
      assert.deepEqual(rows, [], 'the cut product is not stored');
    } finally {
      await client.end();
    }
  });

  it('a quoted field open at the end of the file is a truncated record', async () => {
    const dataDir = join(dir, 'open-quote');
    await cp(fullExport, dataDir, { recursive: true });
    const featuresFile = join(dataDir, 'features.csv');
    const text = await readFile(featuresFile, 'utf8');
    const lineCount = text.split('\n').length; // the appended line is the last one
    await writeFile(featuresFile, `${text}99999999,1,"Fabric","Can`);
    const databaseUrl = await createTestDatabase('loader_cut_open_quote');
    const rejectsFile = join(dir, 'open-quote.rejects.ndjson');
    await loadCatalog({ databaseUrl, dataDir, rejectsFile, logger: silent });
    const rejects = (await readRejects(rejectsFile)).filter((reject) => reject.file === 'features.csv');
    assert.deepEqual(
      rejects.map(({ line, reason }) => ({ line, reason })),
      [{ line: lineCount, reason: 'truncated' }],
    );
  });
});
