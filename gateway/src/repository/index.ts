import type { Queryable } from '../db/database.js';
import { ProductDocumentRepository } from './product-documents.js';
import { ProductListingRepository } from './product-listing.js';
import { ProductRepository } from './products.js';

export type Repositories = ReturnType<typeof createRepositories>;

export function createRepositories(db: Queryable) {
  return {
    products: new ProductRepository(db),
    documents: new ProductDocumentRepository(db),
    listings: new ProductListingRepository(db),
  };
}
