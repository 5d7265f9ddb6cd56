import type { FastifyInstance } from 'fastify';
import type { CachedRoute } from '../cache/entry.js';
import { NotFoundError } from '../errors.js';
import { parseProductId } from '../http/ids.js';
import type { Loaders } from '../loaders/index.js';
import type { Services } from '../services.js';
import { atelierProduct, atelierProductWithFeatures, atelierStyles } from './atelier-shapes.js';
import { replyCached } from './cached-json.js';
import {
  errorSchema,
  pageQuery,
  productIdParams,
  productSchema,
  productWithFeaturesSchema,
  relatedSchema,
  stylesSchema,
} from './schemas.js';

interface PageQuery {
  page: number;
  count: number;
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
    app.get<{ Querystring: PageQuery }>(
      '/products',
      {
        schema: {
          summary: 'One page of products in id order',
          querystring: pageQuery,
          response: { 200: { type: 'array', items: productSchema }, 400: errorSchema, 503: errorSchema },
        },
      },
      (request, reply) =>
        replyCached(services, '/products', request, reply, async (scope) => {
          scope.tags.addProductList();
          const rows = await services.pager.page(request.query.page, request.query.count);
          scope.tags.addProducts(rows.map((row) => row.id));
          return rows.map(atelierProduct);
        }),
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
        (request, reply) =>
          replyCached(services, url, request, reply, ({ loaders }) => build(loaders, parseProductId(request.params.product_id))),
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
