import type { Database } from '../db/database.js';
import { FeatureRepository } from './features.js';
import { PhotoRepository } from './photos.js';
import { ProductRepository } from './products.js';
import { RelatedRepository } from './related.js';
import { SkuRepository } from './skus.js';
import { StyleRepository } from './styles.js';

export type Repositories = ReturnType<typeof createRepositories>;

export function createRepositories(db: Database) {
  return {
    products: new ProductRepository(db),
    features: new FeatureRepository(db),
    styles: new StyleRepository(db),
    photos: new PhotoRepository(db),
    skus: new SkuRepository(db),
    related: new RelatedRepository(db),
  };
}
