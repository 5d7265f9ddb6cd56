// The front end's product page: everything about one product in one GraphQL query. The IDE opens
// on it; plain JavaScript so that k6 (its own runtime, no TypeScript) sends the same query the
// tests assert on (through scripts/test/product-page.js).

export const PRODUCT_PAGE_QUERY = `query ProductPage($id: ID!) {
  product(id: $id) {
    id name slogan description category defaultPrice createdAt updatedAt
    features { feature value }
    styles { id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity } }
    related { id name defaultPrice }
    relatedIds
  }
}`;

/** The POST /graphql body asking for product `id`'s page. */
export function productPageBody(id) {
  return JSON.stringify({ operationName: 'ProductPage', query: PRODUCT_PAGE_QUERY, variables: { id: String(id) } });
}
