import type { Database } from '../db/database.js';

export interface PhotoRow {
  style_id: number;
  url: string | null;
  thumbnail_url: string | null;
}

export class PhotoRepository {
  constructor(private readonly db: Database) {}

  findByStyleIds(styleIds: readonly number[]): Promise<PhotoRow[]> {
    return this.db.query(
      'SELECT style_id, url, thumbnail_url FROM catalog.photos WHERE style_id = ANY($1::bigint[]) ORDER BY id',
      [styleIds],
    );
  }
}
