export const typeDefs = /* GraphQL */ `
  type Query {
    "One product, or null when there is no such product."
    product(id: ID!): Product
    "One page of products in id order (count 1..100)."
    products(page: Int = 1, count: Int = 5): [Product!]!
    "Keyset cursor paging over products in id order (first 1..100); deep pages cost what page 1 costs."
    productsConnection(first: Int = 5, after: String): ProductConnection!
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
    features: [Feature!]!
    styles: [Style!]!
    related: [Product!]!
    relatedIds: [ID!]!
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
    photos: [Photo!]!
    skus: [Sku!]!
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
