import { INDEXED_TEXT_MAX_LENGTH } from '@catalog/contract';

/**
 * The six files of the Atelier export and how each maps onto a catalog table: the one
 * description both the generator (headers, column order) and the loader (aliases, types,
 * foreign keys, load order) work from.
 */

/** How a column's text is checked and converted on the way into Postgres. */
export type ColumnKind =
  | 'id' // positive bigint, unique within the file
  | 'reference' // positive bigint that must be the id of a loaded row of another file
  | 'requiredText' // text that must not be empty or `null`
  | 'text' // nullable text; literal `null` becomes NULL
  | 'price' // non-negative numeric(12,2), nullable
  | 'flag' // 0/1 (or true/false) boolean
  | 'quantity'; // non-negative integer, nullable

export type TableName = 'products' | 'features' | 'styles' | 'photos' | 'skus' | 'related';

export interface ColumnSpec {
  /** Column name in the catalog table. */
  readonly column: string;
  /** Header names the export uses for this column (the column name itself always matches). */
  readonly aliases?: readonly string[];
  readonly kind: ColumnKind;
  /** For `reference` columns: the table whose loaded ids the value must point at. */
  readonly references?: TableName;
  /** For `reference` columns: a value that marks "no reference" in the export and is rejected by its own reason. */
  readonly zeroReason?: string;
  /** For text columns that are index keys: the most characters a value may have (longer may not fit an index entry). */
  readonly maxLength?: number;
}

export interface CatalogFileSpec {
  readonly file: string;
  readonly table: TableName;
  /** The header the export writes, in its order. */
  readonly header: readonly string[];
  readonly columns: readonly ColumnSpec[];
}

const id: ColumnSpec = { column: 'id', kind: 'id' };
const productRef: ColumnSpec = {
  column: 'product_id',
  aliases: ['productId', 'current_product_id'],
  kind: 'reference',
  references: 'products',
};
const styleRef: ColumnSpec = {
  column: 'style_id',
  aliases: ['styleId'],
  kind: 'reference',
  references: 'styles',
};

/** In load order: every file comes after the files its references point into. */
export const CATALOG_FILES: readonly CatalogFileSpec[] = [
  {
    file: 'product.csv',
    table: 'products',
    header: ['id', 'name', 'slogan', 'description', 'category', 'default_price'],
    columns: [
      id,
      { column: 'name', kind: 'requiredText', maxLength: INDEXED_TEXT_MAX_LENGTH.name },
      { column: 'slogan', kind: 'text' },
      { column: 'description', kind: 'text' },
      { column: 'category', kind: 'text', maxLength: INDEXED_TEXT_MAX_LENGTH.category },
      { column: 'default_price', kind: 'price' },
    ],
  },
  {
    file: 'features.csv',
    table: 'features',
    header: ['id', 'product_id', 'feature', 'value'],
    columns: [id, productRef, { column: 'feature', kind: 'requiredText' }, { column: 'value', kind: 'text' }],
  },
  {
    file: 'styles.csv',
    table: 'styles',
    header: ['id', 'productId', 'name', 'sale_price', 'original_price', 'default_style'],
    columns: [
      id,
      productRef,
      { column: 'name', kind: 'requiredText' },
      { column: 'sale_price', kind: 'price' },
      { column: 'original_price', kind: 'price' },
      { column: 'default_style', kind: 'flag' },
    ],
  },
  {
    file: 'related.csv',
    table: 'related',
    header: ['id', 'current_product_id', 'related_product_id'],
    columns: [
      id,
      productRef,
      {
        column: 'related_product_id',
        kind: 'reference',
        references: 'products',
        zeroReason: 'related id 0',
      },
    ],
  },
  {
    file: 'photos.csv',
    table: 'photos',
    header: ['id', 'styleId', 'url', 'thumbnail_url'],
    columns: [id, styleRef, { column: 'url', kind: 'text' }, { column: 'thumbnail_url', kind: 'text' }],
  },
  {
    file: 'skus.csv',
    table: 'skus',
    header: ['id', 'styleId', 'size', 'quantity'],
    columns: [id, styleRef, { column: 'size', kind: 'text' }, { column: 'quantity', kind: 'quantity' }],
  },
];

export function fileSpecFor(table: TableName): CatalogFileSpec {
  const spec = CATALOG_FILES.find((candidate) => candidate.table === table);
  if (!spec) throw new Error(`no catalog file loads table ${table}`);
  return spec;
}
