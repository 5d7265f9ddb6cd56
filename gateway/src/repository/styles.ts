import type { Database } from '../db/database.js';

export interface StyleRow {
  id: number;
  product_id: number;
  name: string;
  sale_price: string | null;
  original_price: string | null;
  default_style: boolean;
}

export class StyleRepository {
  constructor(private readonly db: Database) {}

  findByProductIds(productIds: readonly number[]): Promise<StyleRow[]> {
    return this.db.query(
      `SELECT id, product_id, name, sale_price, original_price, default_style
         FROM catalog.styles WHERE product_id = ANY($1::bigint[]) ORDER BY id`,
      [productIds],
    );
  }
}
