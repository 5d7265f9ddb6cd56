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

/** A style as the REST styles route reads it: Atelier's names. */
export interface StyleTree {
  id: number;
  name: string;
  sale_price: string | null;
  original_price: string | null;
  default_style: boolean;
  photos: PhotoJson[];
  skus: SkuJson[];
}

/**
 * A style as the GraphQL schema names its fields: graphql-jit reads a field named as its property
 * inline, where a resolver renaming one costs a closure, a resolve-info object and a path per
 * value (per photo, on a product page).
 */
export interface StyleDocument {
  id: number;
  name: string;
  salePrice: string | null;
  originalPrice: string | null;
  isDefault: boolean;
  photos: { url: string | null; thumbnailUrl: string | null }[];
  skus: SkuJson[];
}

export interface ProductRelations {
  features: FeatureJson[];
  styles: StyleDocument[];
  related_ids: number[];
}

export type ProductDocument = ProductRow & ProductRelations;

const FEATURES = `COALESCE((
  SELECT json_agg(json_build_object('feature', f.feature, 'value', f.value) ORDER BY f.id)
    FROM ${SERVING_SCHEMA}.features f WHERE f.product_id = p.id), '[]') AS features`;

/** How a styles column spells its JSON keys: Atelier's names or the GraphQL schema's. */
interface StyleKeys {
  salePrice: string;
  originalPrice: string;
  isDefault: string;
  thumbnailUrl: string;
}

const stylesColumn = (keys: StyleKeys) => `COALESCE((
  SELECT json_agg(json_build_object(
      'id', s.id, 'name', s.name,
      '${keys.salePrice}', s.sale_price::text, '${keys.originalPrice}', s.original_price::text,
      '${keys.isDefault}', s.default_style,
      'photos', COALESCE((
        SELECT json_agg(json_build_object('url', ph.url, '${keys.thumbnailUrl}', ph.thumbnail_url) ORDER BY ph.id)
          FROM ${SERVING_SCHEMA}.photos ph WHERE ph.style_id = s.id), '[]'),
      'skus', COALESCE((
        SELECT json_agg(json_build_object('id', k.id, 'size', k.size, 'quantity', k.quantity) ORDER BY k.id)
          FROM ${SERVING_SCHEMA}.skus k WHERE k.style_id = s.id), '[]')
    ) ORDER BY s.id)
    FROM ${SERVING_SCHEMA}.styles s WHERE s.product_id = p.id), '[]') AS styles`;

const STYLE_TREES = stylesColumn({
  salePrice: 'sale_price',
  originalPrice: 'original_price',
  isDefault: 'default_style',
  thumbnailUrl: 'thumbnail_url',
});
const STYLE_DOCUMENTS = stylesColumn({
  salePrice: 'salePrice',
  originalPrice: 'originalPrice',
  isDefault: 'isDefault',
  thumbnailUrl: 'thumbnailUrl',
});

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
  findStyleTrees(ids: readonly number[]): Promise<{ id: number; styles: StyleTree[] }[]> {
    return this.select(ids, `p.id, ${STYLE_TREES}`);
  }

  /** Related product ids, for the products that exist. */
  findRelatedIds(ids: readonly number[]): Promise<({ id: number } & Pick<ProductRelations, 'related_ids'>)[]> {
    return this.select(ids, `p.id, ${RELATED_IDS}`);
  }

  /** Everything about the products, styles named as the GraphQL schema names them (the GraphQL product page). */
  findDocuments(ids: readonly number[]): Promise<ProductDocument[]> {
    return this.select(ids, `${productColumns}, ${FEATURES}, ${STYLE_DOCUMENTS}, ${RELATED_IDS}`);
  }

  private select<Row>(ids: readonly number[], columns: string): Promise<Row[]> {
    return this.db.query(`SELECT ${columns} FROM ${SERVING_SCHEMA}.products p WHERE p.id = ANY($1::bigint[])`, [ids]);
  }
}
