import { SERVING_SCHEMA } from '@catalog/contract';
import type { Queryable } from '../db/database.js';

export interface ProductRow {
  id: number;
  campus: string;
  name: string;
  slogan: string | null;
  description: string | null;
  category: string | null;
  default_price: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Writable product fields, named as in the legacy REST bodies. */
export interface ProductFields {
  name?: string;
  slogan?: string | null;
  description?: string | null;
  category?: string | null;
  default_price?: string | number | null;
}

export const PRODUCT_COLUMN_NAMES = [
  'id',
  'campus',
  'name',
  'slogan',
  'description',
  'category',
  'default_price',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ProductRow)[];
export type ProductColumn = (typeof PRODUCT_COLUMN_NAMES)[number];
export const PRODUCT_COLUMNS = PRODUCT_COLUMN_NAMES.join(', ');
const WRITABLE_COLUMNS = ['name', 'slogan', 'description', 'category', 'default_price'] as const;
/** Below every real id, so "after" it means "from the start". */
export const BEFORE_FIRST_ID = Number.MIN_SAFE_INTEGER;

export class ProductRepository {
  constructor(private readonly db: Queryable) {}

  findByIds(ids: readonly number[]): Promise<ProductRow[]> {
    return this.db.query(`SELECT ${PRODUCT_COLUMNS} FROM ${SERVING_SCHEMA}.products WHERE id = ANY($1::bigint[])`, [ids]);
  }

  /** Keyset page in id order: rows after `afterId`, skipping `skip` (kept small by the caller). */
  listAfter(afterId: number, skip: number, limit: number): Promise<ProductRow[]> {
    return this.db.query(`SELECT ${PRODUCT_COLUMNS} FROM ${SERVING_SCHEMA}.products WHERE id > $1 ORDER BY id OFFSET $2 LIMIT $3`, [
      afterId,
      skip,
      limit,
    ]);
  }

  /** The id at every `spacing`-th position in id order (positions spacing, 2·spacing, …). */
  async idsAtEvery(spacing: number): Promise<number[]> {
    const rows = await this.db.query<{ id: number }>(
      `SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS position FROM ${SERVING_SCHEMA}.products) numbered
        WHERE position % $1 = 0 ORDER BY id`,
      [spacing],
    );
    return rows.map((row) => row.id);
  }

  /** A new product id from the table's identity sequence, so a create's cache tags are known before it runs. */
  async reserveId(): Promise<number> {
    const [row] = await this.db.query<{ id: number }>(`SELECT nextval(pg_get_serial_sequence('${SERVING_SCHEMA}.products', 'id')) AS id`);
    return row!.id;
  }

  /** Inserts a product under an id from `reserveId`. */
  async create(id: number, fields: ProductFields): Promise<ProductRow> {
    const columns = WRITABLE_COLUMNS.filter((column) => fields[column] !== undefined);
    const values = columns.map((column) => fields[column]);
    const placeholders = columns.map((_, index) => `$${index + 2}`);
    const [row] = await this.db.query<ProductRow>(
      `INSERT INTO ${SERVING_SCHEMA}.products (${['id', ...columns].join(', ')}) VALUES (${['$1', ...placeholders].join(', ')}) RETURNING ${PRODUCT_COLUMNS}`,
      [id, ...values],
    );
    return row!;
  }

  /** Changes the given fields and stamps updated_at; null when the product does not exist. */
  async update(id: number, fields: ProductFields): Promise<ProductRow | null> {
    const columns = WRITABLE_COLUMNS.filter((column) => fields[column] !== undefined);
    const assignments = columns.map((column, index) => `${column} = $${index + 2}`);
    const [row] = await this.db.query<ProductRow>(
      `UPDATE ${SERVING_SCHEMA}.products SET ${[...assignments, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING ${PRODUCT_COLUMNS}`,
      [id, ...columns.map((column) => fields[column])],
    );
    return row ?? null;
  }

  /** Deletes the product (its features, styles and related rows cascade); false when absent. */
  async delete(id: number): Promise<boolean> {
    const rows = await this.db.query(`DELETE FROM ${SERVING_SCHEMA}.products WHERE id = $1 RETURNING id`, [id]);
    return rows.length > 0;
  }
}
