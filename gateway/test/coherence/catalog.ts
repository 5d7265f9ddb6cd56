// The catalog a coherence run reads and writes: products whose slogans say which write they
// came from, so every value a read returns names its version.
import { createTestDatabase } from '../../../scripts/test/postgres.js';
import { createCatalog, seedBeforeGatewaysStart, withClient } from '../support/gateway.js';

/** The slogan a writer gives `product` at `version`: unique per write, so a read names the write it saw. */
export const versionedSlogan = (product: number, version: number, writer: string): string =>
  `coherence product ${product} version ${version} by ${writer}`;

const CATEGORIES = ['Jackets', 'Pants', 'Kicks', 'Accessories', 'Dresses'];

/**
 * `products` products (ids 1..n), each with a feature, a style and a related product, and the
 * initial slogan `versionedSlogan(id, 0, 'seed')`, in `emptyDatabaseUrl`, by
 * default a fresh one on the suite's Postgres; `heavy` products get that many features more
 * (a response that takes long to compute). Returns the database's URL.
 */
export async function createCoherenceCatalog(
  products: number,
  emptyDatabaseUrl?: string,
  heavy?: { products: readonly number[]; features: number },
): Promise<string> {
  const databaseUrl = emptyDatabaseUrl ?? (await createTestDatabase('coherence'));
  await createCatalog(databaseUrl);
  const ids = Array.from({ length: products }, (_, index) => index + 1);
  // The seed is the catalog a loader swapped in, not a change to it (entries left in the change
  // log would be announced once gateways start, evicting every product while a run warms up).
  await seedBeforeGatewaysStart(databaseUrl, async (client) => {
    await client.query('SET search_path TO catalog');
    await client.query(
      `INSERT INTO products (id, name, slogan, description, category, default_price)
       SELECT id, 'Product ' || id, slogan, 'Described at length, for a body of some size. ' || repeat('Words ', 40),
              ($3::text[])[1 + id % cardinality($3::text[])], 10 + id % 90
       FROM unnest($1::bigint[], $2::text[]) AS t(id, slogan)`,
      [ids, ids.map((id) => versionedSlogan(id, 0, 'seed')), CATEGORIES],
    );
    await client.query(`INSERT INTO features (product_id, feature, value) SELECT id, 'Fabric', 'Canvas' FROM products`);
    await client.query(`INSERT INTO styles (product_id, name, original_price, default_style) SELECT id, 'Plain', 10, true FROM products`);
    await client.query(`INSERT INTO related (product_id, related_product_id) SELECT id, 1 + id % $1 FROM products`, [products]);
    if (heavy) {
      await client.query(
        `INSERT INTO features (product_id, feature, value)
         SELECT id, 'Detail ' || n, repeat('Stitched ', 8) || n FROM unnest($1::bigint[]) AS id, generate_series(1, $2) AS n`,
        [heavy.products, heavy.features],
      );
    }
  });
  return databaseUrl;
}

/** Every product's slogan as the database holds it now: the initial values a run starts from. */
export function currentSlogans(databaseUrl: string): Promise<Map<number, string>> {
  return withClient(databaseUrl, async (client) => {
    const { rows } = await client.query<{ id: string; slogan: string }>('SELECT id, slogan FROM catalog.products');
    return new Map(rows.map((row) => [Number(row.id), row.slogan]));
  });
}
