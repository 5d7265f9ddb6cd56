// A product read every way a client reads one, through a gateway process: REST, GraphQL over POST
// and GET, alone and among others (productsByIds), and as a query no cache has seen. What each
// answer says of the product is reduced to the same shape, so one expectation judges them all.
import type { Endpoint } from '../coherence/workload.js';

/** A product as an answer shows it; null: the answer says there is no such product. */
export type Seen = { name: string; slogan: string | null } | null;

export interface ProductRead {
  label: string;
  /** Reads product `id` through `gateway`; throws on any answer but the product or its absence. */
  read(gateway: Endpoint, id: number): Promise<Seen>;
}

const PRODUCT_QUERY = 'query Product($id: ID!) { product(id: $id) { id name slogan } }';
/** Never written, never deleted: the other product of a productsByIds read. */
export const BYSTANDER_ID = 1;
const PRODUCTS_BY_IDS_QUERY = 'query Products($ids: [ID!]!) { productsByIds(ids: $ids) { id name slogan } }';

/** One request through `gateway`: its status and its body as JSON (as text when it is not JSON). */
export async function send(
  gateway: Endpoint,
  method: string,
  path: string,
  { body, token }: { body?: unknown; token?: string } = {},
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${gateway.base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

const seen = (product: { name: string; slogan: string | null } | null | undefined): Seen =>
  product ? { name: product.name, slogan: product.slogan } : null;

/** A GraphQL answer's data, or an error naming what came back instead. */
async function graphqlData<Data>(gateway: Endpoint, method: 'GET' | 'POST', query: string, variables: unknown): Promise<Data> {
  const { status, json } =
    method === 'POST'
      ? await send(gateway, 'POST', '/graphql', { body: { query, variables } })
      : await send(gateway, 'GET', `/graphql?${new URLSearchParams({ query, variables: JSON.stringify(variables) })}`);
  const answer = json as { data?: Data; errors?: unknown };
  if (status !== 200 || answer.errors !== undefined || answer.data === undefined) {
    throw new Error(`GraphQL ${method} via ${gateway.name} answered ${status}: ${JSON.stringify(json)}`);
  }
  return answer.data;
}

type ProductData = { product: { name: string; slogan: string | null } | null };

export const restRead: ProductRead = {
  label: 'REST GET /products/:id',
  async read(gateway, id) {
    const { status, json } = await send(gateway, 'GET', `/products/${id}`);
    if (status === 404) return null;
    if (status !== 200) throw new Error(`GET /products/${id} via ${gateway.name} answered ${status}: ${JSON.stringify(json)}`);
    return seen(json as { name: string; slogan: string | null });
  },
};

const graphqlProductRead = (method: 'GET' | 'POST'): ProductRead => ({
  label: `GraphQL ${method} product`,
  read: async (gateway, id) => seen((await graphqlData<ProductData>(gateway, method, PRODUCT_QUERY, { id: String(id) })).product),
});

const productsByIdsRead: ProductRead = {
  label: 'GraphQL POST productsByIds',
  async read(gateway, id) {
    const data = await graphqlData<{ productsByIds: ProductData['product'][] }>(gateway, 'POST', PRODUCTS_BY_IDS_QUERY, {
      ids: [String(id), String(BYSTANDER_ID)],
    });
    return seen(data.productsByIds[0]);
  },
};

/** The cacheable reads of one product: each has its cache entry, shared through Redis (GraphQL GET and POST share one). */
export const CACHED_READS: readonly ProductRead[] = [restRead, graphqlProductRead('POST'), graphqlProductRead('GET'), productsByIdsRead];
/** Distinct cache entries the CACHED_READS of one product make. */
export const CACHE_ENTRIES_PER_PRODUCT = 3;

let uncachedQueries = 0;

/**
 * A query no gateway has answered before (a fresh alias is a new operation, so a new cache key):
 * always computed, so always read from a database.
 */
export const uncachedRead: ProductRead = {
  label: 'GraphQL POST, a query never seen before',
  async read(gateway, id) {
    const alias = `p${(uncachedQueries += 1)}`;
    const data = await graphqlData<Record<string, ProductData['product']>>(
      gateway,
      'POST',
      `query Uncached($id: ID!) { ${alias}: product(id: $id) { id name slogan } }`,
      { id: String(id) },
    );
    return seen(data[alias]);
  },
};
