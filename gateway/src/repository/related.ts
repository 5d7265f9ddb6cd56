import type { Database } from '../db/database.js';

export interface RelatedRow {
  product_id: number;
  related_product_id: number;
}

export class RelatedRepository {
  constructor(private readonly db: Database) {}

  findByProductIds(productIds: readonly number[]): Promise<RelatedRow[]> {
    return this.db.query(
      'SELECT product_id, related_product_id FROM catalog.related WHERE product_id = ANY($1::bigint[]) ORDER BY id',
      [productIds],
    );
  }
}
