import type { WriteAnnouncer } from '../coherence/write-announcer.js';
import type { CatalogChange } from '../events/catalog-events.js';
import type { ProductFields, ProductRepository, ProductRow } from '../repository/products.js';

/**
 * Fields product lists filter or sort by: changing one moves the product into, within or out of
 * filtered and sorted lists, so those must be evicted like lists whose ids changed.
 */
const LISTED_FIELDS = ['name', 'category', 'default_price'] as const;

/**
 * Product writes, shared by REST and GraphQL. Each runs inside its announcement
 * (gateway/README.md, "Consistency", rule 4): what it touches is marked before the statement and
 * confirmed after the commit, and the write answers only once no replica can serve what it
 * replaced. A create reserves its id first, so its tags are known before it runs.
 */
export class ProductWrites {
  constructor(
    private readonly products: ProductRepository,
    private readonly announcer: WriteAnnouncer,
  ) {}

  async create(fields: ProductFields): Promise<ProductRow> {
    const id = await this.products.reserveId();
    return this.announcer.around(change(id, true), () => this.products.create(id, fields));
  }

  update(id: number, fields: ProductFields): Promise<ProductRow | null> {
    const listChanged = LISTED_FIELDS.some((field) => fields[field] !== undefined);
    return this.announcer.around(change(id, listChanged), () => this.products.update(id, fields));
  }

  delete(id: number): Promise<boolean> {
    return this.announcer.around(change(id, true), () => this.products.delete(id));
  }
}

const change = (id: number, listChanged: boolean): CatalogChange => ({ productIds: [id], listChanged });
