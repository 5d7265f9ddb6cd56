import type { ResponseCache } from '../cache/response-cache.js';
import { PRODUCT_LIST_TAG, productTag } from '../cache/tags.js';
import type { ProductFields, ProductRepository, ProductRow } from '../repository/products.js';

/**
 * Product writes, shared by REST and GraphQL: each one evicts exactly the cached responses built
 * from the product, plus the list pages when ids were added or removed (positions moved).
 */
export class ProductWrites {
  constructor(
    private readonly products: ProductRepository,
    private readonly cache: ResponseCache,
  ) {}

  async create(fields: ProductFields): Promise<ProductRow> {
    const row = await this.products.create(fields);
    await this.cache.invalidate([productTag(row.id), PRODUCT_LIST_TAG]);
    return row;
  }

  async update(id: number, fields: ProductFields): Promise<ProductRow | null> {
    const row = await this.products.update(id, fields);
    if (row) await this.cache.invalidate([productTag(id)]);
    return row;
  }

  async delete(id: number): Promise<boolean> {
    const deleted = await this.products.delete(id);
    if (deleted) await this.cache.invalidate([productTag(id), PRODUCT_LIST_TAG]);
    return deleted;
  }
}
