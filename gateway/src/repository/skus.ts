import type { Database } from '../db/database.js';

export interface SkuRow {
  id: number;
  style_id: number;
  size: string | null;
  quantity: number | null;
}

export class SkuRepository {
  constructor(private readonly db: Database) {}

  findByStyleIds(styleIds: readonly number[]): Promise<SkuRow[]> {
    return this.db.query(
      'SELECT id, style_id, size, quantity FROM catalog.skus WHERE style_id = ANY($1::bigint[]) ORDER BY id',
      [styleIds],
    );
  }
}
