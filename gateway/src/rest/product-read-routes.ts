import type { FastifyInstance } from 'fastify';
import type { CachedRoute } from '../cache/cached-routes.js';
import { NotFoundError } from '../errors.js';
import { parseProductId } from '../http/ids.js';
import type { Loaders } from '../loaders/index.js';
import { nonUtf8ParametersError } from '../http/query-string.js';
import { isLegacyList, parseProductListQuery, type ProductListParameters, type ProductListQuery } from '../paging/product-list-query.js';
import { PRODUCT_SORTS } from '../paging/product-sort.js';
import type { ProductRow } from '../repository/products.js';
import type { ReadTarget } from '../db/read-targets.js';
import type { Services } from '../services.js';
import { atelierProduct, atelierProductWithFeatures, atelierStyles } from './atelier-shapes.js';
import { listCacheKey, restCacheKey } from '../cache/keys.js';
import { replyCached } from './cached-json.js';
import {
  badRequestSchema,
  errorSchema,
  listQuery,
  noQuery,
  productIdParams,
  productSchema,
  productWithFeaturesSchema,
  relatedSchema,
  strictQueryDocs,
  stylesSchema,
} from './schemas.js';

/**
 * The rows of a checked list query, read on the scope's target: the legacy one by the pager,
 * exactly as before filters existed; any other by the listing.
 */
function listRows(services: Services, { repositories }: ReadTarget, list: ProductListQuery): Promise<ProductRow[]> {
  if (isLegacyList(list)) return services.pager.page(list.page, list.count, repositories.products);
  const skip = (list.page - 1) * list.count;
  return repositories.listings.list(list.filter, PRODUCT_SORTS[list.sort], undefined, list.count, skip);
}

interface ProductParams {
  product_id: string;
}

/** The loaded row, or a 404 naming the product. */
function found<Row>(row: Row | null, id: number): Row {
  if (!row) throw new NotFoundError(`product ${id} not found`);
  return row;
}

const notFound = { 400: badRequestSchema, 404: errorSchema, 503: errorSchema };

/** The legacy Atelier read paths, byte for byte. */
export function productReadRoutes(services: Services) {
  return async (app: FastifyInstance) => {
    // Before the schema's checks: a value that is not UTF-8 is refused, not read as its literal `%FF` text.
    app.addHook('preValidation', (request, _reply, done) => done(nonUtf8ParametersError(request.query)));

    app.get<{ Querystring: ProductListParameters }>(
      '/products',
      {
        schema: {
          summary: 'One page of products in id order, or filtered and sorted with the storefront parameters',
          ...strictQueryDocs,
          querystring: listQuery,
          response: { 200: { type: 'array', items: productSchema }, 400: badRequestSchema, 503: errorSchema },
        },
      },
      (request, reply) => {
        // Checked before the cache lookup: a bad parameter is a 400, never a cached answer.
        const list = parseProductListQuery(request.query);
        return replyCached(services, '/products', listCacheKey(list), request, reply, async (scope) => {
          scope.tags.addProductList();
          const rows = await listRows(services, scope.target, list);
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
        {
          schema: {
            summary,
            ...strictQueryDocs,
            params: productIdParams,
            querystring: noQuery,
            response: { 200: responseSchema, ...notFound },
          },
        },
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
