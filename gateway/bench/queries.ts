/**
 * The product-page GraphQL query, written once per schema: the gateway's Apollo schema and
 * the schema PostGraphile derives from the same tables. Both ask for the same data: the
 * product, its features, its styles with photos and skus, and the related product ids.
 */
export const GATEWAY_PRODUCT_PAGE = `query ProductPage($id: ID!) {
  product(id: $id) {
    id name slogan description category defaultPrice createdAt updatedAt
    features { feature value }
    styles { id name originalPrice salePrice isDefault photos { url thumbnailUrl } skus { id size quantity } }
    relatedIds
  }
}`;

export const POSTGRAPHILE_PRODUCT_PAGE = `query ProductPage($id: BigInt!) {
  productByRowId(rowId: $id) {
    rowId name slogan description category defaultPrice createdAt updatedAt
    featuresByProductId { nodes { feature value } }
    stylesByProductId {
      nodes {
        rowId name originalPrice salePrice defaultStyle
        photosByStyleId { nodes { url thumbnailUrl } }
        skusesByStyleId { nodes { rowId size quantity } }
      }
    }
    relatedsByProductId { nodes { relatedProductId } }
  }
}`;

export type GraphqlDialect = 'gateway' | 'postgraphile';

export function productPageBody(dialect: GraphqlDialect, productId: number): string {
  const query = dialect === 'gateway' ? GATEWAY_PRODUCT_PAGE : POSTGRAPHILE_PRODUCT_PAGE;
  return JSON.stringify({ operationName: 'ProductPage', query, variables: { id: String(productId) } });
}

/** What both answers must agree on for the comparison to be fair: the same amount of data. */
export interface ProductPageShape {
  name: string;
  features: number;
  styles: number;
  photos: number;
  skus: number;
  relatedIds: string;
}

type Nodes<T> = { nodes: T[] };
interface GatewayProduct {
  name: string;
  features: unknown[];
  styles: Array<{ photos: unknown[]; skus: unknown[] }>;
  relatedIds: string[];
}
interface PostgraphileProduct {
  name: string;
  featuresByProductId: Nodes<unknown>;
  stylesByProductId: Nodes<{ photosByStyleId: Nodes<unknown>; skusesByStyleId: Nodes<unknown> }>;
  relatedsByProductId: Nodes<{ relatedProductId: string }>;
}

const sortedIds = (ids: string[]) =>
  ids
    .map(Number)
    .sort((a, b) => a - b)
    .join(',');

export function productPageShape(dialect: GraphqlDialect, data: Record<string, unknown>): ProductPageShape {
  if (dialect === 'gateway') {
    const product = data.product as GatewayProduct;
    return {
      name: product.name,
      features: product.features.length,
      styles: product.styles.length,
      photos: product.styles.reduce((sum, style) => sum + style.photos.length, 0),
      skus: product.styles.reduce((sum, style) => sum + style.skus.length, 0),
      relatedIds: sortedIds(product.relatedIds),
    };
  }
  const product = data.productByRowId as PostgraphileProduct;
  const styles = product.stylesByProductId.nodes;
  return {
    name: product.name,
    features: product.featuresByProductId.nodes.length,
    styles: styles.length,
    photos: styles.reduce((sum, style) => sum + style.photosByStyleId.nodes.length, 0),
    skus: styles.reduce((sum, style) => sum + style.skusesByStyleId.nodes.length, 0),
    relatedIds: sortedIds(product.relatedsByProductId.nodes.map((node) => node.relatedProductId)),
  };
}
