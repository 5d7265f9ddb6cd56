import { SERVING_SCHEMA } from '@catalog/contract';
import type { Queryable } from '../db/database.js';
import { PRODUCT_COLUMNS, type ProductRow } from './products.js';

// A product's relations as JSON built inside Postgres: one statement answers a whole product
// page, however many features, styles, photos, skus and related rows it has. Prices are cast to
// text so they keep their two decimals ("140.00"); arrays keep the legacy id order.

export interface FeatureJson {
  feature: string;
  value: string | null;
}

export interface PhotoJson {
  url: string | null;
  thumbnail_url: string | null;
}

export interface SkuJson {
  id: number;
  size: string | null;
  quantity: number | null;
}

export interface StyleTree {
  id: number;
  name: string;
  sale_price: string | null;
  original_price: string | null;
  default_style: boolean;
  photos: PhotoJson[];
  skus: SkuJson[];
}

export interface ProductRelations {
  features: FeatureJson[];
  styles: StyleTree[];
  related_ids: number[];
}

export type ProductDocument = ProductRow & ProductRelations;

const FEATURES = `COALESCE((
  SELECT json_agg(json_build_object('feature', f.feature, 'value', f.value) ORDER BY f.id)
    FROM ${SERVING_SCHEMA}.features f WHERE f.product_id = p.id), '[]') AS features`;

const STYLES = `COALESCE((
  SELECT json_agg(json_build_object(
      'id', s.id, 'name', s.name,
      'sale_price', s.sale_price::text, 'original_price', s.original_price::text,
      'default_style', s.default_style,
      'photos', COALESCE((
        SELECT json_agg(json_build_object('url', ph.url, 'thumbnail_url', ph.thumbnail_url) ORDER BY ph.id)
          FROM ${SERVING_SCHEMA}.photos ph WHERE ph.style_id = s.id), '[]'),
      'skus', COALESCE((
        SELECT json_agg(json_build_object('id', k.id, 'size', k.size, 'quantity', k.quantity) ORDER BY k.id)
          FROM ${SERVING_SCHEMA}.skus k WHERE k.style_id = s.id), '[]')
    ) ORDER BY s.id)
    FROM ${SERVING_SCHEMA}.styles s WHERE s.product_id = p.id), '[]') AS styles`;

const RELATED_IDS = `COALESCE((
  SELECT json_agg(r.related_product_id ORDER BY r.id)
    FROM ${SERVING_SCHEMA}.related r WHERE r.product_id = p.id), '[]') AS related_ids`;

const productColumns = PRODUCT_COLUMNS.split(', ')
  .map((column) => `p.${column}`)
  .join(', ');

/** Products with some or all of their relations, one statement per batch of product ids. */
export class ProductDocumentRepository {
  constructor(private readonly db: Queryable) {}

  /** Product columns and features (the REST product route). */
  findWithFeatures(ids: readonly number[]): Promise<(ProductRow & Pick<ProductRelations, 'features'>)[]> {
    return this.select(ids, `${productColumns}, ${FEATURES}`);
  }

  /** Styles with their photos and skus, for the products that exist. */
  findStyleTrees(ids: readonly number[]): Promise<({ id: number } & Pick<ProductRelations, 'styles'>)[]> {
    return this.select(ids, `p.id, ${STYLES}`);
  }

  /** Related product ids, for the products that exist. */
  findRelatedIds(ids: readonly number[]): Promise<({ id: number } & Pick<ProductRelations, 'related_ids'>)[]> {
    return this.select(ids, `p.id, ${RELATED_IDS}`);
  }

  /** Everything about the products (the GraphQL product page). */
  findDocuments(ids: readonly number[]): Promise<ProductDocument[]> {
    return this.select(ids, `${productColumns}, ${FEATURES}, ${STYLES}, ${RELATED_IDS}`);
  }

  private select<Row>(ids: readonly number[], columns: string): Promise<Row[]> {
    return this.db.query(`SELECT ${columns} FROM ${SERVING_SCHEMA}.products p WHERE p.id = ANY($1::bigint[])`, [ids]);
  }
}
