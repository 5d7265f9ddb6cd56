import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { generateCatalog } from '../src/generate/generate-catalog.js';
import { loadCatalog } from '../src/load/load-catalog.js';
import { catalogFingerprint, loaderSchemas } from './catalog-state.js';

const silent = pino({ level: 'silent' });

test('a load that cannot finish fails clearly and leaves the served catalog and no build schema behind', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'loader-failures-'));
  const good = join(dir, 'good');
  await generateCatalog({ outDir: good, products: 50, seed: 5 });
  const databaseUrl = await createTestDatabase('loader_failures');
  await loadCatalog({ databaseUrl, dataDir: good, logger: silent });
  const served = await catalogFingerprint(databaseUrl);

  const broken = async (name: string, files: Record<string, string>) => {
    const dataDir = join(dir, name);
    await generateCatalog({ outDir: dataDir, products: 20, seed: 6 });
    for (const [file, text] of Object.entries(files)) await writeFile(join(dataDir, file), text);
    return dataDir;
  };
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['unknown header', { 'skus.csv': 'id,styleId,size,colour\n1,1,XS,red\n' }, /skus\.csv: header has no column for "quantity"/],
    ['empty file', { 'related.csv': '' }, /related\.csv is empty: expected the header id,current_product_id,related_product_id/],
    [
      'no valid product',
      { 'product.csv': 'id,name,slogan,description,category,default_price\n0,x,x,x,x,1\n' },
      /refusing to replace the catalog with an empty one/,
    ],
  ];
  for (const [name, files, message] of cases) {
    await t.test(name, async () => {
      await assert.rejects(loadCatalog({ databaseUrl, dataDir: await broken(name.replaceAll(' ', '-'), files), logger: silent }), message);
      assert.deepEqual(await catalogFingerprint(databaseUrl), served);
      assert.deepEqual(await loaderSchemas(databaseUrl), ['catalog']);
    });
  }
  await t.test('missing file', async () => {
    await assert.rejects(loadCatalog({ databaseUrl, dataDir: join(dir, 'nowhere'), logger: silent }), /missing input file product\.csv/);
    assert.deepEqual(await catalogFingerprint(databaseUrl), served);
  });
});
