import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createTestDatabase } from '../../scripts/test/postgres.js';
import { loadCatalog } from '../src/load/load-catalog.js';
import type { LoadReport } from '../src/load/load-report.js';
import type { RejectedRecord } from '../src/load/rejects-writer.js';

/**
 * One hand-made export holding every defect class of the real Atelier files; each case below
 * checks where its line went: loaded (with its repair visible in the database) or rejected
 * with its reason and line number. Line numbers count the header as line 1.
 */
const FIXTURE: Record<string, string | Buffer> = {
  'product.csv': [
    '\uFEFFid,name,slogan,description,category,default_price\r\n', // 1: byte order mark, CRLF
    '1,"Camo Onesie","Blend in","The So Fatigues, with ""quotes""",Jackets,140\r\n', // 2: quoted comma and "" escapes
    '2,"Bright Future Sunglasses","Shades","Where you are going\n', // 3-4: quoted newline
    'you might not need roads",Accessories, 69 \n', //    and a padded number
    '3,"Morning Joggers",null,null,Pants,40\n', // 5: literal null
    '4,"Bad Price",x,y,Pants,abc\n', // 6: non-numeric
    '5,"Negative Price",x,y,Pants,-10\n', // 7: negative
    '1,"Duplicate Onesie",x,y,Jackets,1\n', // 8: duplicate id
    '6,"Unterminated,x,y,Pants,10\n', // 9: unterminated quote
    '7,"After The Broken Line",x,y,Pants,10\n', // 10: loads (parsing resumes)
    '8,"Extra Column",x,y,Pants,10,surplus\n', // 11: extra column
    '9,"Trailing Comma",x,y,Pants,10,\n', // 12: empty extra column (repaired)
    '\n', // 13: blank line
    '10,"No Price",x,y,Pants,\n', // 14: empty price → NULL
    '11,"Quote "inside" field",x,y,Pants,5\n', // 15: broken quoting
    '12,"Last Line Without Newline",x,y,Pants,12', // 16: no line end: the file may have been cut here
  ].join(''),
  'features.csv': Buffer.concat([
    Buffer.from(
      [
        'id,product_id,feature,value\n',
        '1,1,"Fabric","Canvas"\n', // 2
        '2,1,"Buttons",null\n', // 3: literal null value
        '3,999,"Fabric","Silk"\n', // 4: product that does not exist
        '4,4,"Fabric","Wool"\n', // 5: product that was rejected
        '2,2,"Duplicate","x"\n', // 6: duplicate id
        '5,2,"Fabric","Caf',
      ].join(''),
    ),
    Buffer.from([0xe9]), // 7: Latin-1 "é", not UTF-8
    Buffer.from('"\n'),
  ]),
  'styles.csv': [
    'id,productId,name,sale_price,original_price,default_style\n', // header alias productId
    '1,1,"Forest Green & Black",null,140,1\n', // 2
    '2,2,"Desert Brown",100,  120 ,0\n', // 3: padded
    '3,3,"Ocean Blue",null,-5,1\n', // 4: negative
    '4,3,"Sky Blue",null,50,yes\n', // 5: not a boolean
    '5,42,"Orphan",null,50,1\n', // 6: orphan product
  ].join(''),
  'photos.csv': [
    'id,styleId,url,thumbnail_url\n',
    '1,1,"https://img/1.jpg","https://img/1t.jpg"\n', // 2
    '2,1,"https://img/2.jpg","https://img/2t.jpg","https://img/extra.jpg"\n', // 3: extra column
    '3,1,"https://img/3.jpg?q=80,"https://img/3t.jpg"\n', // 4: broken quoting (the real export's)
    '4,2,"https://img/4.jpg",null\n', // 5
    '5,5,"https://img/5.jpg","https://img/5t.jpg"\n', // 6: style 5 was rejected
  ].join(''),
  'skus.csv': [
    'id,styleId,size,quantity\r\n',
    '1,1,"XS",8\r\n', // 2
    '2,1,7.5,3\r\n', // 3: numeric-looking size stays text
    '3,2," 8 ", 4\r\n', // 4: padded
    '4,2,"M",many\r\n', // 5: non-numeric
    '5,2,"L",-1\r\n', // 6: negative
    '6,77,"S",1\r\n', // 7: orphan style
    '7,2,"XL",99999999999\r\n', // 8: does not fit an integer
  ].join(''),
  'related.csv': [
    'id,current_product_id,related_product_id\n',
    '1,1,2\n', // 2
    '2,1,0\n', // 3: related id 0
    '3,2,404\n', // 4: points nowhere
    '4,2,3\n', // 5
  ].join(''),
};

const EXPECTED_REJECTS = [
  ['product.csv', 6, 'not a number'],
  ['product.csv', 7, 'negative number'],
  ['product.csv', 8, 'duplicate id'],
  ['product.csv', 9, 'unterminated quote'],
  ['product.csv', 11, 'wrong column count'],
  ['product.csv', 13, 'blank line'],
  ['product.csv', 15, 'malformed quoting'],
  ['product.csv', 16, 'truncated'],
  ['features.csv', 4, 'orphan product_id'],
  ['features.csv', 5, 'orphan product_id'],
  ['features.csv', 6, 'duplicate id'],
  ['features.csv', 7, 'invalid UTF-8'],
  ['styles.csv', 4, 'negative number'],
  ['styles.csv', 5, 'not a boolean'],
  ['styles.csv', 6, 'orphan product_id'],
  ['related.csv', 3, 'related id 0'],
  ['related.csv', 4, 'orphan related_product_id'],
  ['photos.csv', 3, 'wrong column count'],
  ['photos.csv', 4, 'malformed quoting'],
  ['photos.csv', 6, 'orphan style_id'],
  ['skus.csv', 5, 'not a number'],
  ['skus.csv', 6, 'negative number'],
  ['skus.csv', 7, 'orphan style_id'],
  ['skus.csv', 8, 'number out of range'],
] as const;

describe('every defect class of the export, one hand-made line each', () => {
  let report: LoadReport;
  let rejects: RejectedRecord[];
  let db: pg.Client;

  const rejectAt = (file: string, line: number) => {
    const found = rejects.filter((reject) => reject.file === file && reject.line === line);
    assert.equal(found.length, 1, `one reject for ${file}:${line}, got ${JSON.stringify(found)}`);
    return found[0]!;
  };
  const row = async (sql: string, ...params: unknown[]) => (await db.query(sql, params)).rows[0];

  before(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'loader-defects-'));
    for (const [file, text] of Object.entries(FIXTURE)) await writeFile(join(dataDir, file), text);
    const databaseUrl = await createTestDatabase('loader_defects');
    // A fixture of nothing but defects: far over the default reject ratio, which is tested elsewhere.
    report = await loadCatalog({
      databaseUrl,
      dataDir,
      reportFile: join(dataDir, 'report.json'),
      maxRejectRatio: 1,
      logger: pino({ level: 'silent' }),
    });
    rejects = (await readFile(report.rejectsFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as RejectedRecord);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  after(() => db.end());

  it('rejects exactly the unrepairable lines, each with its file, line and reason', async () => {
    assert.deepEqual(
      rejects.map((reject) => [reject.file, reject.line, reject.reason]),
      EXPECTED_REJECTS.map((expected) => [...expected]),
    );
    assert.equal(rejectAt('product.csv', 6).raw, '4,"Bad Price",x,y,Pants,abc');
    assert.match(rejectAt('product.csv', 6).detail, /default_price/);
  });

  it('strips a byte order mark and CRLF line ends', async () => {
    assert.deepEqual(await row(`SELECT name, default_price::text FROM catalog.products WHERE id = 1`), {
      name: 'Camo Onesie',
      default_price: '140.00',
    });
    assert.equal(report.files[0]!.repairs['byte order mark'], 1);
    assert.deepEqual(await row(`SELECT size, quantity FROM catalog.skus WHERE id = 1`), { size: 'XS', quantity: 8 });
  });

  it('keeps quoted commas, "" escapes and quoted newlines inside their field', async () => {
    assert.equal((await row(`SELECT description FROM catalog.products WHERE id = 1`)).description, 'The So Fatigues, with "quotes"');
    assert.equal(
      (await row(`SELECT description FROM catalog.products WHERE id = 2`)).description,
      'Where you are going\nyou might not need roads',
    );
  });

  it('trims padded numbers and text', async () => {
    assert.equal((await row(`SELECT default_price::text FROM catalog.products WHERE id = 2`)).default_price, '69.00');
    assert.equal((await row(`SELECT original_price::text FROM catalog.styles WHERE id = 2`)).original_price, '120.00');
    assert.deepEqual(await row(`SELECT size, quantity FROM catalog.skus WHERE id = 3`), { size: '8', quantity: 4 });
  });

  it('turns literal null and empty values into NULL', async () => {
    assert.deepEqual(await row(`SELECT slogan, description FROM catalog.products WHERE id = 3`), { slogan: null, description: null });
    assert.equal((await row(`SELECT value FROM catalog.features WHERE id = 2`)).value, null);
    assert.equal((await row(`SELECT sale_price FROM catalog.styles WHERE id = 1`)).sale_price, null);
    assert.equal((await row(`SELECT thumbnail_url FROM catalog.photos WHERE id = 4`)).thumbnail_url, null);
    assert.equal((await row(`SELECT default_price FROM catalog.products WHERE id = 10`)).default_price, null);
  });

  it('keeps mixed sizes as text', async () => {
    assert.equal((await row(`SELECT size FROM catalog.skus WHERE id = 2`)).size, '7.5');
  });

  it('lets the first row with an id win and rejects later duplicates', async () => {
    assert.equal((await row(`SELECT name FROM catalog.products WHERE id = 1`)).name, 'Camo Onesie');
    assert.equal((await row(`SELECT feature FROM catalog.features WHERE id = 2`)).feature, 'Buttons');
    assert.match(rejectAt('features.csv', 6).detail, /id 2/);
  });

  it('quarantines only the line of an unterminated quote and resumes on the next one', async () => {
    assert.equal(rejectAt('product.csv', 9).raw, '6,"Unterminated,x,y,Pants,10');
    assert.equal((await row(`SELECT name FROM catalog.products WHERE id = 7`)).name, 'After The Broken Line');
  });

  it('rejects extra non-empty columns and drops empty trailing ones', async () => {
    assert.match(rejectAt('photos.csv', 3).detail, /expected 4 fields, found 5/);
    assert.equal((await row(`SELECT name FROM catalog.products WHERE id = 9`)).name, 'Trailing Comma');
    assert.equal(report.files[0]!.repairs['empty extra columns'], 1);
  });

  it('rejects references to missing or rejected rows, and related id 0', async () => {
    assert.match(rejectAt('features.csv', 4).detail, /product_id 999/);
    assert.match(rejectAt('photos.csv', 6).detail, /style_id 5/);
    assert.deepEqual((await db.query(`SELECT id FROM catalog.related ORDER BY id`)).rows, [{ id: '1' }, { id: '4' }]);
  });

  it('rejects a last line that has no line end as truncated: a cut file must not store a shortened value', async () => {
    assert.equal(await row(`SELECT name FROM catalog.products WHERE id = 12`), undefined);
    assert.equal(rejectAt('product.csv', 16).raw, '12,"Last Line Without Newline",x,y,Pants,12');
  });

  it('reconciles every physical line of every file', () => {
    for (const file of report.files) {
      const physicalLines = FIXTURE[file.file]!.toString()
        .split('\n')
        .filter((line, index, all) => index < all.length - 1 || line !== '').length;
      assert.equal(file.lines.read, physicalLines, file.file);
      assert.equal(file.lines.read, file.lines.header + file.lines.loaded + file.lines.rejected, file.file);
      assert.equal(file.records.read, file.records.loaded + file.records.rejected, file.file);
      assert.equal(
        file.records.rejected,
        rejects.filter((reject) => reject.file === file.file).length,
        `${file.file}: rejects in the file`,
      );
    }
    assert.deepEqual(report.files[0]!.lines, { read: 16, header: 1, loaded: 7, rejected: 8 });
  });
});
