import type { Database } from '../db/database.js';

export interface FeatureRow {
  product_id: number;
  feature: string;
  value: string | null;
}

export class FeatureRepository {
  constructor(private readonly db: Database) {}

  findByProductIds(productIds: readonly number[]): Promise<FeatureRow[]> {
    return this.db.query(
      'SELECT product_id, feature, value FROM catalog.features WHERE product_id = ANY($1::bigint[]) ORDER BY id',
      [productIds],
    );
  }
}
