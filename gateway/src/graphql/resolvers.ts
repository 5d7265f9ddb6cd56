import { BadInputError } from '../errors.js';
import { assertWriteAllowed } from '../http/auth.js';
import { parseProductId } from '../http/ids.js';
import { decodeCursor, encodeCursor } from '../paging/cursor.js';
import type { PhotoRow } from '../repository/photos.js';
import { BEFORE_FIRST_ID, type ProductRow } from '../repository/products.js';
import type { StyleRow } from '../repository/styles.js';
import { productFieldsFromInput, type ProductInput } from '../writes/product-fields.js';
import type { GraphQLContext } from './context.js';

const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 100_000_000;

function assertInRange(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BadInputError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
}

/** Rows fetched by a list query go into the request's product loader and tags. */
function remember(context: GraphQLContext, rows: ProductRow[]): void {
  context.scope.tags.addProductList();
  context.scope.tags.addProducts(rows.map((row) => row.id));
  for (const row of rows) context.scope.loaders.product.prime(row.id, row);
}

export const resolvers = {
  Query: {
    product: (_: unknown, args: { id: string }, context: GraphQLContext) =>
      context.scope.loaders.product.load(parseProductId(args.id, 'id')),

    products: async (_: unknown, args: { page: number; count: number }, context: GraphQLContext) => {
      assertInRange('page', args.page, 1, MAX_PAGE);
      assertInRange('count', args.count, 1, MAX_PAGE_SIZE);
      const rows = await context.services.pager.page(args.page, args.count);
      remember(context, rows);
      return rows;
    },

    productsConnection: async (_: unknown, args: { first: number; after?: string | null }, context: GraphQLContext) => {
      assertInRange('first', args.first, 1, MAX_PAGE_SIZE);
      const afterId = args.after == null ? BEFORE_FIRST_ID : decodeCursor(args.after);
      // One row more than asked tells whether there is a next page.
      const rows = await context.services.repositories.products.listAfter(afterId, 0, args.first + 1);
      const nodes = rows.slice(0, args.first);
      remember(context, nodes);
      const edges = nodes.map((node) => ({ cursor: encodeCursor(node.id), node }));
      return {
        edges,
        nodes,
        pageInfo: {
          hasNextPage: rows.length > args.first,
          hasPreviousPage: args.after != null,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? null,
        },
      };
    },
  },

  Mutation: {
    createProduct: (_: unknown, args: { input: ProductInput }, context: GraphQLContext) => {
      assertWriteAllowed(context.authorization, context.services.config.WRITE_TOKEN);
      return context.services.writes.create(productFieldsFromInput(args.input, 'create'));
    },

    updateProduct: (_: unknown, args: { id: string; input: ProductInput }, context: GraphQLContext) => {
      assertWriteAllowed(context.authorization, context.services.config.WRITE_TOKEN);
      return context.services.writes.update(parseProductId(args.id, 'id'), productFieldsFromInput(args.input, 'update'));
    },

    deleteProduct: (_: unknown, args: { id: string }, context: GraphQLContext) => {
      assertWriteAllowed(context.authorization, context.services.config.WRITE_TOKEN);
      return context.services.writes.delete(parseProductId(args.id, 'id'));
    },
  },

  Product: {
    defaultPrice: (product: ProductRow) => product.default_price,
    createdAt: (product: ProductRow) => product.created_at.toISOString(),
    updatedAt: (product: ProductRow) => product.updated_at.toISOString(),
    features: (product: ProductRow, _: unknown, context: GraphQLContext) => context.scope.loaders.features.load(product.id),
    styles: (product: ProductRow, _: unknown, context: GraphQLContext) => context.scope.loaders.styles.load(product.id),
    relatedIds: (product: ProductRow, _: unknown, context: GraphQLContext) =>
      context.scope.loaders.relatedIds.load(product.id),
    related: async (product: ProductRow, _: unknown, context: GraphQLContext) => {
      const { loaders } = context.scope;
      const products = await loaders.product.loadMany(await loaders.relatedIds.load(product.id));
      return products.filter((related): related is ProductRow => {
        if (related instanceof Error) throw related;
        return related !== null;
      });
    },
  },

  Style: {
    originalPrice: (style: StyleRow) => style.original_price,
    salePrice: (style: StyleRow) => style.sale_price,
    isDefault: (style: StyleRow) => style.default_style,
    photos: (style: StyleRow, _: unknown, context: GraphQLContext) => context.scope.loaders.photos.load(style.id),
    skus: (style: StyleRow, _: unknown, context: GraphQLContext) => context.scope.loaders.skus.load(style.id),
  },

  Photo: {
    thumbnailUrl: (photo: PhotoRow) => photo.thumbnail_url,
  },
};
