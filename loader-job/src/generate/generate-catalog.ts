import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CATALOG_FILES, fileSpecFor, type TableName } from '../catalog-files.js';
import { BufferedFileWriter } from './buffered-file-writer.js';
import { DIRTY_FILE_TRAITS, DefectSprinkler } from './defects.js';
import { featureFields, photoFields, productFields, relatedFields, skuFields, styleFields } from './fake-catalog.js';
import { SeededRandom } from './random.js';

export interface GenerateCatalogOptions {
  readonly outDir: string;
  readonly products: number;
  readonly seed?: number;
  /** Sprinkle every defect class of the real export (see defects.ts). */
  readonly dirty?: boolean;
}

export interface GenerateCatalogResult {
  /** Records written per file (header excluded). */
  readonly files: Record<string, number>;
}

/** Mean children per parent, as measured on the real Atelier export. */
const MEAN = { features: 2.2, styles: 1.9, photos: 2.9, skus: 5.8, related: 4.5 };

/** One output file: header first, then records, with the dirty export's file-level traits. */
class ExportFile {
  readonly writer: BufferedFileWriter;
  records = 0;
  private readonly lineEnd: string;

  constructor(
    outDir: string,
    private readonly table: TableName,
    private readonly sprinkler: DefectSprinkler | undefined,
  ) {
    const spec = fileSpecFor(table);
    const traits = sprinkler ? DIRTY_FILE_TRAITS[table] : { byteOrderMark: false, crlf: false };
    this.lineEnd = traits.crlf ? '\r\n' : '\n';
    this.writer = new BufferedFileWriter(join(outDir, spec.file));
    this.writer.append(`${traits.byteOrderMark ? '\uFEFF' : ''}${spec.header.join(',')}${this.lineEnd}`);
  }

  row(fields: string[]): void {
    const records = this.sprinkler ? this.sprinkler.render(this.table, fields) : [fields.join(',')];
    for (const record of records) this.writer.append(record + this.lineEnd);
    this.records += records.length;
  }
}

/**
 * Writes the six export files for `products` products, deterministic for a given seed, in
 * one streaming pass: every file is written as the products are made, with backpressure.
 */
export async function generateCatalog(options: GenerateCatalogOptions): Promise<GenerateCatalogResult> {
  const { outDir, products, seed = 1, dirty = false } = options;
  if (!Number.isSafeInteger(products) || products < 1) throw new Error(`products must be a positive integer, got ${products}`);
  await mkdir(outDir, { recursive: true });
  const random = new SeededRandom(seed);
  const sprinkler = dirty ? new DefectSprinkler(new SeededRandom(seed ^ 0x5eed), products + 1000) : undefined;
  const files = new Map(CATALOG_FILES.map(({ table }) => [table, new ExportFile(outDir, table, sprinkler)]));
  const file = (table: TableName) => files.get(table)!;
  const nextId = { features: 0, styles: 0, photos: 0, skus: 0, related: 0 };

  for (let productId = 1; productId <= products; productId++) {
    file('products').row(productFields(random, productId));
    for (let count = random.poisson(MEAN.features); count > 0; count--) {
      file('features').row(featureFields(random, ++nextId.features, productId));
    }
    const shoes = random.chance(0.2);
    // Every product has at least one style, and every style a photo and a sku.
    for (let index = 0, count = 1 + random.poisson(MEAN.styles - 1); index < count; index++) {
      const styleId = ++nextId.styles;
      file('styles').row(styleFields(random, styleId, productId, index === 0));
      for (let photos = 1 + random.poisson(MEAN.photos - 1); photos > 0; photos--) {
        file('photos').row(photoFields(random, ++nextId.photos, styleId));
      }
      for (let skus = 1 + random.poisson(MEAN.skus - 1); skus > 0; skus--) {
        file('skus').row(skuFields(random, ++nextId.skus, styleId, shoes));
      }
    }
    for (let count = products > 1 ? random.poisson(MEAN.related) : 0; count > 0; count--) {
      const related = 1 + ((productId + random.int(0, products - 2)) % products);
      file('related').row(relatedFields(++nextId.related, productId, related));
    }
    for (const { writer } of files.values()) await writer.drainIfFull();
  }

  const counts: Record<string, number> = {};
  for (const spec of CATALOG_FILES) {
    await file(spec.table).writer.close();
    counts[spec.file] = file(spec.table).records;
  }
  return { files: counts };
}
