import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_FILES } from '../src/catalog-files.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';

async function exportDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const { file } of CATALOG_FILES) hash.update(await readFile(join(dir, file)));
  return hash.digest('hex');
}

test('the generator writes the same files for the same seed, other files for another seed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-generate-'));
  const [first, again, other] = await Promise.all([
    generateCatalog({ outDir: join(dir, 'first'), products: 300, seed: 7, dirty: true }),
    generateCatalog({ outDir: join(dir, 'again'), products: 300, seed: 7, dirty: true }),
    generateCatalog({ outDir: join(dir, 'other'), products: 300, seed: 8, dirty: true }),
  ]);
  assert.deepEqual(again, first);
  assert.equal(await exportDigest(join(dir, 'again')), await exportDigest(join(dir, 'first')));
  assert.notEqual(await exportDigest(join(dir, 'other')), await exportDigest(join(dir, 'first')));
  assert.ok(other.files['product.csv']! >= 300);
});

test('the generator writes the export headers and the real per-product distributions', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-generate-'));
  const products = 5000;
  const { files } = await generateCatalog({ outDir: dir, products, seed: 11 });
  for (const { file, header } of CATALOG_FILES) {
    const text = await readFile(join(dir, file), 'utf8');
    assert.equal(text.slice(0, text.indexOf('\n')), header.join(','), file);
  }
  const perProduct = (file: string) => files[file]! / products;
  const perStyle = (file: string) => files[file]! / files['styles.csv']!;
  assert.equal(files['product.csv'], products);
  const close = (actual: number, expected: number, what: string) =>
    assert.ok(Math.abs(actual - expected) < expected * 0.05, `${what}: ${actual.toFixed(2)} per parent, expected ≈${expected}`);
  close(perProduct('features.csv'), 2.2, 'features');
  close(perProduct('styles.csv'), 1.9, 'styles');
  close(perStyle('photos.csv'), 2.9, 'photos');
  close(perStyle('skus.csv'), 5.8, 'skus');
  close(perProduct('related.csv'), 4.5, 'related');
});
