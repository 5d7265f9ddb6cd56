import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../errors.js';
import { parseProductId } from '../http/ids.js';
import type { ProductRow } from '../repository/products.js';
import type { Services } from '../services.js';
import type { Loaders } from '../loaders/index.js';
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

async function loadExistingProduct(loaders: Loaders, id: number): Promise<ProductRow> {
  const product = await loaders.product.load(id);
  if (!product) throw new NotFoundError(`product ${id} not found`);
  return product;
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
          const [product, features] = await Promise.all([loadExistingProduct(loaders, id), loaders.features.load(id)]);
          return atelierProductWithFeatures(product, features);
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
          const [, styles] = await Promise.all([loadExistingProduct(loaders, id), loaders.styles.load(id)]);
          const styleIds = styles.map((style) => style.id);
          const [photos, skus] = await Promise.all([loaders.photos.loadMany(styleIds), loaders.skus.loadMany(styleIds)]);
          return atelierStyles(id, styles, photos.map(rethrow), skus.map(rethrow));
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
          const [, relatedIds] = await Promise.all([loadExistingProduct(loaders, id), loaders.relatedIds.load(id)]);
          return relatedIds;
        }),
    );
  };
}

/** loadMany reports failures per key; one failed batch fails the response. */
function rethrow<T>(value: T | Error): T {
  if (value instanceof Error) throw value;
  return value;
}
