import type { FeatureRow } from '../repository/features.js';
import type { PhotoRow } from '../repository/photos.js';
import type { ProductRow } from '../repository/products.js';
import type { SkuRow } from '../repository/skus.js';
import type { StyleRow } from '../repository/styles.js';

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

export function atelierProductWithFeatures(row: ProductRow, features: FeatureRow[]) {
  return {
    ...atelierProduct(row),
    features: features.map((feature) => ({ feature: feature.feature, value: feature.value })),
  };
}

// Legacy quirks: a style without photos lists one all-null photo, one without skus a "null" sku.
const NO_PHOTOS = [{ thumbnail_url: null, url: null }];
const NO_SKUS = { null: { quantity: null, size: null } };

export function atelierStyles(productId: number, styles: StyleRow[], photos: PhotoRow[][], skus: SkuRow[][]) {
  return {
    product_id: String(productId),
    results: styles.map((style, index) => {
      const stylePhotos = photos[index]!;
      const styleSkus = skus[index]!;
      return {
        style_id: style.id,
        name: style.name,
        original_price: style.original_price,
        sale_price: style.sale_price,
        'default?': style.default_style,
        photos: stylePhotos.length === 0 ? NO_PHOTOS : stylePhotos.map((photo) => ({ thumbnail_url: photo.thumbnail_url, url: photo.url })),
        skus:
          styleSkus.length === 0
            ? NO_SKUS
            : Object.fromEntries(styleSkus.map((sku) => [String(sku.id), { quantity: sku.quantity, size: sku.size }])),
      };
    }),
  };
}
