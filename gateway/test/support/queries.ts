/** The front end's product page: everything about one product in one query. */
export const PRODUCT_PAGE_QUERY = /* GraphQL */ `
  query ProductPage($id: ID!) {
    product(id: $id) {
      id
      name
      slogan
      description
      category
      defaultPrice
      createdAt
      updatedAt
      features { feature value }
      styles {
        id
        name
        originalPrice
        salePrice
        isDefault
        photos { url thumbnailUrl }
        skus { id size quantity }
      }
      related { id name defaultPrice }
      relatedIds
    }
  }
`;
