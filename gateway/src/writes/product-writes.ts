import type { CatalogEvents } from '../events/catalog-events.js';
import type { ProductFields, ProductRepository, ProductRow } from '../repository/products.js';

/**
 * Product writes, shared by REST and GraphQL: each one announces which product changed, and
 * whether ids were added or removed (list positions moved). A write answers once every
 * subscriber is done (the response cache has evicted, here and in Redis).
 */
export class ProductWrites {
  constructor(
    private readonly products: ProductRepository,
    private readonly events: CatalogEvents,
  ) {}

  async create(fields: ProductFields): Promise<ProductRow> {
    const row = await this.products.create(fields);
    await this.changed(row.id, true);
    return row;
  }

  async update(id: number, fields: ProductFields): Promise<ProductRow | null> {
    const row = await this.products.update(id, fields);
    if (row) await this.changed(id, false);
    return row;
  }

  async delete(id: number): Promise<boolean> {
    const deleted = await this.products.delete(id);
    if (deleted) await this.changed(id, true);
    return deleted;
  }

  private changed(id: number, listChanged: boolean): Promise<void> {
    return this.events.emit('changed', { productIds: [id], listChanged, remote: false });
  }
}
