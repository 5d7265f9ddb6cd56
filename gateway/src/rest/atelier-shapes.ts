import type { FeatureJson, StyleTree } from '../repository/product-documents.js';
import type { ProductRow } from '../repository/products.js';

// Rows → the legacy Atelier JSON shapes, key order included (the response schemas keep it).

export function atelierProduct(row: ProductRow) {
  return {
    id: row.id,
    campus: row.campus,
    name: row.name,
    slogan: row.slogan,
    description: row.description,
    category: row.category,
    default_price: row.default_price,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function atelierProductWithFeatures(row: ProductRow & { features: FeatureJson[] }) {
  return { ...atelierProduct(row), features: row.features };
}

// Legacy quirks: a style without photos lists one all-null photo, one without skus a "null" sku.
const NO_PHOTOS = [{ thumbnail_url: null, url: null }];
const NO_SKUS = { null: { quantity: null, size: null } };

export function atelierStyles(productId: number, styles: StyleTree[]) {
  return {
    product_id: String(productId),
    results: styles.map((style) => ({
      style_id: style.id,
      name: style.name,
      original_price: style.original_price,
      sale_price: style.sale_price,
      'default?': style.default_style,
      photos: style.photos.length === 0 ? NO_PHOTOS : style.photos,
      skus:
        style.skus.length === 0
          ? NO_SKUS
          : Object.fromEntries(style.skus.map((sku) => [String(sku.id), { quantity: sku.quantity, size: sku.size }])),
    })),
  };
}
