import type { FastifyInstance } from 'fastify';
import type { CachedRoute } from '../cache/cached-routes.js';
import { BadInputError, NotFoundError } from '../errors.js';
import { parseProductId } from '../http/ids.js';
import type { Loaders } from '../loaders/index.js';
import { parseProductFilter, type FilterFieldNames } from '../paging/product-filter.js';
import { PRODUCT_SORTS, sortOfRestName } from '../paging/product-sort.js';
import type { ProductRow } from '../repository/products.js';
import type { Services } from '../services.js';
import { atelierProduct, atelierProductWithFeatures, atelierStyles } from './atelier-shapes.js';
import { restCacheKey } from '../cache/keys.js';
import { replyCached } from './cached-json.js';
import {
  errorSchema,
  listQuery,
  productIdParams,
  productSchema,
  productWithFeaturesSchema,
  relatedSchema,
  stylesSchema,
} from './schemas.js';

interface ListQuery {
  page: number;
  count: number;
  category?: string;
  min_price?: string;
  max_price?: string;
  q?: string;
  sort?: string;
}

const LIST_FILTER_PARAMETERS: FilterFieldNames = { category: 'category', minPrice: 'min_price', maxPrice: 'max_price', search: 'q' };
/**
 * Filtered or sorted lists keep the legacy page/count paging, served with OFFSET over the sort's
 * index, so they stop this deep; deeper pages are for GraphQL's productsConnection cursors.
 */
export const MAX_FILTERED_LIST_OFFSET = 10_000;

/**
 * The checked query of a list asked with storefront parameters, or undefined for a legacy request
 * (none of them, or only sort=id_asc): those keep their exact legacy path and bytes.
 */
function filteredList(services: Services, query: ListQuery): (() => Promise<ProductRow[]>) | undefined {
  const { page, count, category, min_price: minPrice, max_price: maxPrice, q: search, sort = 'id_asc' } = query;
  const filtered = category !== undefined || minPrice !== undefined || maxPrice !== undefined || search !== undefined;
  if (!filtered && sort === 'id_asc') return undefined;
  const filter = parseProductFilter({ category, minPrice, maxPrice, search }, LIST_FILTER_PARAMETERS);
  const skip = (page - 1) * count;
  if (skip + count > MAX_FILTERED_LIST_OFFSET) {
    throw new BadInputError(
      `page: a filtered or sorted list reaches ${MAX_FILTERED_LIST_OFFSET} products deep (page × count); page further with GraphQL productsConnection cursors`,
    );
  }
  const order = PRODUCT_SORTS[sortOfRestName(sort)];
  return () => services.repositories.listings.list(filter, order, undefined, count, skip);
}
interface ProductParams {
  product_id: string;
}

/** The loaded row, or a 404 naming the product. */
function found<Row>(row: Row | null, id: number): Row {
  if (!row) throw new NotFoundError(`product ${id} not found`);
  return row;
}

const notFound = { 400: errorSchema, 404: errorSchema, 503: errorSchema };

/** The legacy Atelier read paths, byte for byte. */
export function productReadRoutes(services: Services) {
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: ListQuery }>(
      '/products',
      {
        schema: {
          summary: 'One page of products in id order, or filtered and sorted with the storefront parameters',
          querystring: listQuery,
          response: { 200: { type: 'array', items: productSchema }, 400: errorSchema, 503: errorSchema },
        },
      },
      (request, reply) => {
        // Checked before the cache lookup: a bad parameter is a 400, never a cached answer.
        const filtered = filteredList(services, request.query);
        const { page, count, category, min_price, max_price, q, sort } = request.query;
        const key = restCacheKey('/products', [
          ['page', page],
          ['count', count],
          ['category', category],
          ['min_price', min_price],
          ['max_price', max_price],
          ['q', q],
          ['sort', sort === 'id_asc' ? undefined : sort],
        ]);
        return replyCached(services, '/products', key, request, reply, async (scope) => {
          scope.tags.addProductList();
          const rows = await (filtered ? filtered() : services.pager.page(request.query.page, request.query.count));
          scope.tags.addProducts(rows.map((row) => row.id));
          return rows.map(atelierProduct);
        });
      },
    );

    /** A GET of one product's resource: 404 when the product does not exist. */
    const productRoute = (
      url: CachedRoute,
      summary: string,
      responseSchema: object,
      build: (loaders: Loaders, id: number) => Promise<unknown>,
    ) =>
      app.get<{ Params: ProductParams }>(
        url,
        { schema: { summary, params: productIdParams, response: { 200: responseSchema, ...notFound } } },
        (request, reply) => {
          const id = parseProductId(request.params.product_id);
          return replyCached(services, url, restCacheKey(url.replace(':product_id', String(id))), request, reply, ({ loaders }) =>
            build(loaders, id),
          );
        },
      );

    productRoute('/products/:product_id', 'One product with its features', productWithFeaturesSchema, async (loaders, id) =>
      atelierProductWithFeatures(found(await loaders.productWithFeatures.load(id), id)),
    );
    productRoute('/products/:product_id/styles', "A product's styles with photos and skus", stylesSchema, async (loaders, id) =>
      atelierStyles(id, found(await loaders.styleTrees.load(id), id).styles),
    );
    productRoute(
      '/products/:product_id/related',
      'Ids of related products',
      relatedSchema,
      async (loaders, id) => found(await loaders.relatedIds.load(id), id).related_ids,
    );
  };
}
