import type { CatalogEvents } from '../events/catalog-events.js';
import type { ProductFields, ProductRepository, ProductRow } from '../repository/products.js';

/**
 * Fields product lists filter or sort by: changing one moves the product into, within or out of
 * filtered and sorted lists, so those must be evicted like lists whose ids changed.
 */
const LISTED_FIELDS = ['name', 'category', 'default_price'] as const;

/**
 * Product writes, shared by REST and GraphQL: each one announces which product changed, and
 * whether list positions may have moved (ids added or removed, or a listed field changed). A
 * write answers once every subscriber is done (the response cache has evicted, here and in Redis).
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
    if (row)
      await this.changed(
        id,
        LISTED_FIELDS.some((field) => fields[field] !== undefined),
      );
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
