import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../errors.js';
import { parseProductId } from '../http/ids.js';
import type { Services } from '../services.js';
import { atelierProduct, atelierProductWithFeatures, atelierStyles } from './atelier-shapes.js';
import { replyCached, serveHotResponses } from './cached-json.js';
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
    serveHotResponses(app, services);

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
        replyCached(services, request, reply, async (scope) => {
          scope.tags.addProductList();
          const rows = await services.pager.page(request.query.page, request.query.count);
          scope.tags.addProducts(rows.map((row) => row.id));
          return rows.map(atelierProduct);
        }),
    );

    app.get<{ Params: ProductParams }>(
      '/products/:product_id',
      {
        schema: {
          summary: 'One product with its features',
          params: productIdParams,
          response: { 200: productWithFeaturesSchema, ...notFound },
        },
      },
      (request, reply) =>
        replyCached(services, request, reply, async ({ loaders }) => {
          const id = parseProductId(request.params.product_id);
          return atelierProductWithFeatures(found(await loaders.productWithFeatures.load(id), id));
        }),
    );

    app.get<{ Params: ProductParams }>(
      '/products/:product_id/styles',
      {
        schema: {
          summary: "A product's styles with photos and skus",
          params: productIdParams,
          response: { 200: stylesSchema, ...notFound },
        },
      },
      (request, reply) =>
        replyCached(services, request, reply, async ({ loaders }) => {
          const id = parseProductId(request.params.product_id);
          return atelierStyles(id, found(await loaders.styleTrees.load(id), id).styles);
        }),
    );

    app.get<{ Params: ProductParams }>(
      '/products/:product_id/related',
      {
        schema: {
          summary: 'Ids of related products',
          params: productIdParams,
          response: { 200: relatedSchema, ...notFound },
        },
      },
      (request, reply) =>
        replyCached(services, request, reply, async ({ loaders }) => {
          const id = parseProductId(request.params.product_id);
          return found(await loaders.relatedIds.load(id), id).related_ids;
        }),
    );
  };
}
