export const typeDefs = /* GraphQL */ `
  type Query {
    "One product, or null when there is no such product."
    product(id: ID!): Product
    "One page of products in id order (count 1..100)."
    products(page: Int = 1, count: Int = 5): [Product!]!
    """
    Keyset cursor paging over products (first 1..100), filtered and sorted; deep pages cost what
    page 1 costs under every sort. A cursor is valid only for the sort it was issued under.
    """
    productsConnection(first: Int = 5, after: String, filter: ProductFilter, sort: ProductSort = ID_ASC): ProductConnection!
    "Products by id in one call (at most 100 ids), in the order asked; null for an id with no product."
    productsByIds(ids: [ID!]!): [Product]!
  }

  type Mutation {
    createProduct(input: CreateProductInput!): Product!
    "Changes the given fields; null when there is no such product."
    updateProduct(id: ID!, input: UpdateProductInput!): Product
    "True when the product existed and was deleted."
    deleteProduct(id: ID!): Boolean!
  }

  type Product {
    id: ID!
    campus: String!
    name: String!
    slogan: String
    description: String
    category: String
    "Decimal with two places, e.g. 140.00."
    defaultPrice: String
    "ISO-8601 timestamp."
    createdAt: String!
    updatedAt: String!
    "The first \`first\` features (all when omitted); likewise on every list below."
    features(first: Int): [Feature!]!
    styles(first: Int): [Style!]!
    "Related products; with \`first\`, only those are loaded."
    related(first: Int): [Product!]!
    relatedIds(first: Int): [ID!]!
  }

  type Feature {
    feature: String!
    value: String
  }

  type Style {
    id: ID!
    name: String!
    originalPrice: String
    salePrice: String
    isDefault: Boolean!
    photos(first: Int): [Photo!]!
    skus(first: Int): [Sku!]!
  }

  type Photo {
    url: String
    thumbnailUrl: String
  }

  type Sku {
    id: ID!
    size: String
    quantity: Int
  }

  type ProductConnection {
    edges: [ProductEdge!]!
    nodes: [Product!]!
    pageInfo: PageInfo!
  }

  type ProductEdge {
    cursor: String!
    node: Product!
  }

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  "Conditions a listed product meets (all of those given)."
  input ProductFilter {
    "Exact category, e.g. 'Jackets'."
    category: String
    "Lowest default price, inclusive: a decimal such as '20' or '19.99'; excludes products without a price."
    minPrice: String
    "Highest default price, inclusive."
    maxPrice: String
    "Words of the name, each as a word prefix, all required: 'camo ones' finds 'Camo Onesie' (at most 100 characters, 8 words)."
    search: String
  }

  "List orders; ties are broken by id in the same direction. Products without a price come last in both price orders."
  enum ProductSort {
    ID_ASC
    PRICE_ASC
    PRICE_DESC
    NAME_ASC
    NAME_DESC
    NEWEST
    OLDEST
  }

  input CreateProductInput {
    name: String!
    slogan: String
    description: String
    category: String
    defaultPrice: String
  }

  input UpdateProductInput {
    name: String
    slogan: String
    description: String
    category: String
    defaultPrice: String
  }
`;
