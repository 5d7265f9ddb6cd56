import { BadInputError } from '../errors.js';
import { assertWriteAllowed } from '../http/auth.js';
import { parseProductId } from '../http/ids.js';
import { decodeCursor, encodeCursor } from '../paging/cursor.js';
import type { GraphQLResolveInfo } from 'graphql';
import type { PhotoJson, ProductDocument, ProductRelations, StyleTree } from '../repository/product-documents.js';
import { BEFORE_FIRST_ID, type ProductRow } from '../repository/products.js';
import { productFieldsFromInput, type ProductInput } from '../writes/product-input.js';
import type { GraphQLContext } from './context.js';
import { wantsRelations } from './lookahead.js';

const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 100_000_000;

function assertInRange(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new BadInputError(`${name} must be an integer from ${min} to ${max}, got ${value}`);
  }
}

const NO_RELATIONS: ProductRelations = { features: [], styles: [], related_ids: [] };

/**
 * A product's relations: already on it when it was loaded as a document (then synchronously:
 * graphql-js completes plain values without a promise per field), else batch-loaded.
 */
function relationsOf(product: ProductRow | ProductDocument, context: GraphQLContext): ProductRelations | Promise<ProductRelations> {
  if ('styles' in product) return product;
  return context.scope.loaders.document.load(product.id).then((document) => document ?? NO_RELATIONS);
}

/** Resolver of one relation list of a product. */
function relation<K extends keyof ProductRelations>(key: K) {
  return (product: ProductRow, _: unknown, context: GraphQLContext): ProductRelations[K] | Promise<ProductRelations[K]> => {
    const relations = relationsOf(product, context);
    return relations instanceof Promise ? relations.then((loaded) => loaded[key]) : relations[key];
  };
}

/** Products by id, with their relations in the same statement when the query will ask for them. */
function loaderFor(info: GraphQLResolveInfo, context: GraphQLContext) {
  return wantsRelations(info) ? context.scope.loaders.document : context.scope.loaders.product;
}

/** Rows fetched by a list query go into the request's product loader and tags. */
function remember(context: GraphQLContext, rows: ProductRow[]): void {
  context.scope.tags.addProductList();
  context.scope.tags.addProducts(rows.map((row) => row.id));
  for (const row of rows) context.scope.loaders.product.prime(row.id, row);
}

export const resolvers = {
  Query: {
    product: (_: unknown, args: { id: string }, context: GraphQLContext, info: GraphQLResolveInfo) =>
      loaderFor(info, context).load(parseProductId(args.id, 'id')),

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
    features: relation('features'),
    styles: relation('styles'),
    relatedIds: relation('related_ids'),
    related: async (product: ProductRow, _: unknown, context: GraphQLContext, info: GraphQLResolveInfo) => {
      const { related_ids: ids } = await relationsOf(product, context);
      const products = await loaderFor(info, context).loadMany(ids);
      return products.filter((related): related is ProductRow => {
        if (related instanceof Error) throw related;
        return related !== null;
      });
    },
  },

  Style: {
    originalPrice: (style: StyleTree) => style.original_price,
    salePrice: (style: StyleTree) => style.sale_price,
    isDefault: (style: StyleTree) => style.default_style,
  },

  Photo: {
    thumbnailUrl: (photo: PhotoJson) => photo.thumbnail_url,
  },
};
