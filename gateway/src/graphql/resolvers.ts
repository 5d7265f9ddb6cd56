import { BadInputError } from '../errors.js';
import { assertWriteAllowed } from '../http/auth.js';
import { parseProductId } from '../http/ids.js';
import { decodeCursor, encodeCursor } from '../paging/cursor.js';
import { parseProductFilter, type FilterFieldNames, type ProductFilterInput } from '../paging/product-filter.js';
import { PRODUCT_SORTS, type ProductSortName } from '../paging/product-sort.js';
import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import type { ProductDocument, ProductRelations, StyleDocument } from '../repository/product-documents.js';
import type { ListedProduct } from '../repository/product-listing.js';
import { PRODUCT_COLUMN_NAMES, type ProductColumn, type ProductRow } from '../repository/products.js';
import { productFieldsFromInput, type ProductInput } from '../writes/product-input.js';
import type { GraphQLContext } from './context.js';
import { selectedFieldNames, wantsRelations } from './lookahead.js';

const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 100_000_000;
/** Most ids one productsByIds call may ask for (one batched statement). */
export const MAX_IDS = 100;
/** Largest `first` on a product's nested lists. */
const MAX_NESTED_FIRST = 100;

const FILTER_ARGUMENTS: FilterFieldNames = {
  category: 'filter.category',
  minPrice: 'filter.minPrice',
  maxPrice: 'filter.maxPrice',
  search: 'filter.search',
};

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

interface FirstArgs {
  first?: number | null;
}

/** The first `args.first` items of a nested list (all of them without it). */
function firstOf<T>(items: T[], args: FirstArgs): T[] {
  if (args.first == null) return items;
  assertInRange('first', args.first, 1, MAX_NESTED_FIRST);
  return items.length > args.first ? items.slice(0, args.first) : items;
}

/** Resolver of one relation list of a product. */
function relation<K extends keyof ProductRelations>(key: K) {
  return (product: ProductRow, args: FirstArgs, context: GraphQLContext): ProductRelations[K] | Promise<ProductRelations[K]> => {
    const relations = relationsOf(product, context);
    return relations instanceof Promise
      ? relations.then((loaded) => firstOf<unknown>(loaded[key], args) as ProductRelations[K])
      : (firstOf<unknown>(relations[key], args) as ProductRelations[K]);
  };
}

/** Products by id, with their relations in the same statement when the query will ask for them. */
function loaderFor(info: GraphQLResolveInfo, context: GraphQLContext) {
  return wantsRelations(info) ? context.scope.loaders.document : context.scope.loaders.product;
}

/** Rows fetched by a list query go into the request's tags, and whole rows into its product loader. */
function remember(context: GraphQLContext, rows: Pick<ProductRow, 'id'>[], whole = true): void {
  context.scope.tags.addProductList();
  context.scope.tags.addProducts(rows.map((row) => row.id));
  if (whole) for (const row of rows) context.scope.loaders.product.prime(row.id, row as ProductRow);
}

/** The column each scalar Product field reads; the other fields (relations) need only the id. */
const FIELD_COLUMNS: Record<string, ProductColumn> = {
  id: 'id',
  campus: 'campus',
  name: 'name',
  slogan: 'slogan',
  description: 'description',
  category: 'category',
  defaultPrice: 'default_price',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Where a connection's products are selected. */
const CONNECTION_NODES = [['nodes'], ['edges', 'node']] as const;

/** Columns by the connection field they were worked out for: documents are parsed once and reused, so their nodes are too. */
const columnsByField = new WeakMap<FieldNode, ProductColumn[]>();

/** The product columns the connection's selection reads. */
function connectionColumns(info: GraphQLResolveInfo): ProductColumn[] {
  const field = info.fieldNodes[0]!;
  let columns = columnsByField.get(field);
  if (!columns) {
    const fields = selectedFieldNames(info, CONNECTION_NODES);
    columns = PRODUCT_COLUMN_NAMES.filter((column) =>
      Object.entries(FIELD_COLUMNS).some(([name, read]) => read === column && fields.has(name)),
    );
    columnsByField.set(field, columns);
  }
  return columns;
}

export const resolvers = {
  Query: {
    product: (_: unknown, args: { id: string }, context: GraphQLContext, info: GraphQLResolveInfo) =>
      loaderFor(info, context).load(parseProductId(args.id, 'id')),

    products: async (_: unknown, args: { page: number; count: number }, context: GraphQLContext) => {
      assertInRange('page', args.page, 1, MAX_PAGE);
      assertInRange('count', args.count, 1, MAX_PAGE_SIZE);
      const rows = await context.services.pager.page(args.page, args.count, context.scope.target.repositories.products);
      remember(context, rows);
      return rows;
    },

    productsConnection: async (
      _: unknown,
      args: { first: number; after?: string | null; filter?: ProductFilterInput | null; sort: ProductSortName },
      context: GraphQLContext,
      info: GraphQLResolveInfo,
    ) => {
      assertInRange('first', args.first, 1, MAX_PAGE_SIZE);
      const filter = parseProductFilter(args.filter ?? {}, FILTER_ARGUMENTS);
      const after = args.after == null ? undefined : decodeCursor(args.after, args.sort);
      const columns = connectionColumns(info);
      // One row more than asked tells whether there is a next page.
      const rows = await context.scope.target.repositories.listings.list(
        filter,
        PRODUCT_SORTS[args.sort],
        after,
        args.first + 1,
        0,
        columns,
      );
      const nodes = rows.slice(0, args.first);
      remember(context, nodes, columns.length === PRODUCT_COLUMN_NAMES.length);
      const cursorOf = (node: ListedProduct | undefined) => (node ? encodeCursor(args.sort, node.sort_key, node.id) : null);
      // Cursors are encoded only when asked for: a page usually wants just the end cursor.
      return {
        get edges() {
          return nodes.map((node) => ({ cursor: cursorOf(node), node }));
        },
        nodes,
        pageInfo: {
          hasNextPage: rows.length > args.first,
          hasPreviousPage: args.after != null,
          get startCursor() {
            return cursorOf(nodes[0]);
          },
          get endCursor() {
            return cursorOf(nodes.at(-1));
          },
        },
      };
    },

    productsByIds: async (_: unknown, args: { ids: string[] }, context: GraphQLContext, info: GraphQLResolveInfo) => {
      if (args.ids.length > MAX_IDS) throw new BadInputError(`ids: at most ${MAX_IDS} ids per call, got ${args.ids.length}`);
      const ids = args.ids.map((id, index) => parseProductId(id, `ids[${index}]`));
      const products = await loaderFor(info, context).loadMany(ids);
      return products.map((product) => {
        if (product instanceof Error) throw product;
        return product;
      });
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
    related: async (product: ProductRow, args: FirstArgs, context: GraphQLContext, info: GraphQLResolveInfo) => {
      const { related_ids: ids } = await relationsOf(product, context);
      // Only the related products asked for are loaded.
      const products = await loaderFor(info, context).loadMany(firstOf(ids, args));
      return products.filter((related): related is ProductRow => {
        if (related instanceof Error) throw related;
        return related !== null;
      });
    },
  },

  // Styles come named as the schema names their fields (ProductDocumentRepository.findDocuments):
  // only the fields taking arguments need a resolver.
  Style: {
    photos: (style: StyleDocument, args: FirstArgs) => firstOf(style.photos, args),
    skus: (style: StyleDocument, args: FirstArgs) => firstOf(style.skus, args),
  },
};
