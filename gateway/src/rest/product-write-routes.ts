import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError } from '../errors.js';
import { assertWriteAllowed } from '../http/auth.js';
import { parseProductId } from '../http/ids.js';
import type { ProductFields } from '../repository/products.js';
import type { Services } from '../services.js';
import { atelierProduct } from './atelier-shapes.js';
import { createProductBody, errorSchema, productIdParams, productSchema, updateProductBody } from './schemas.js';

interface ProductParams {
  product_id: string;
}

const writeErrors = { 400: errorSchema, 401: errorSchema, 404: errorSchema, 413: errorSchema, 503: errorSchema };
const bearerAuth = [{ bearerAuth: [] }];

const NO_CONTENT = { status: 204, body: '' };

/** Product writes behind the bearer token; each evicts what it changed from every replica's cache. */
export function productWriteRoutes(services: Services) {
  return async (app: FastifyInstance) => {
    const { writer } = services.pipeline;
    // Authorise before reading the body: without the token a client cannot make us parse anything.
    app.addHook('onRequest', async (request: FastifyRequest) => {
      assertWriteAllowed(request.headers.authorization, services.config.WRITE_TOKEN);
    });

    app.post<{ Body: ProductFields }>(
      '/products',
      {
        schema: {
          summary: 'Create a product',
          security: bearerAuth,
          body: createProductBody,
          response: { 201: productSchema, ...writeErrors },
        },
      },
      async (request, reply) => {
        const row = await services.writes.create(request.body);
        // The serializer of the status the answer has: the route's 201 schema.
        const body = reply.code(201).serialize(atelierProduct(row)) as string;
        return writer.respond(request, reply, { status: 201, body });
      },
    );

    app.put<{ Params: ProductParams; Body: ProductFields }>(
      '/products/:product_id',
      {
        schema: {
          summary: 'Change some fields of a product (updated_at is set)',
          security: bearerAuth,
          params: productIdParams,
          body: updateProductBody,
          response: { 200: productSchema, ...writeErrors },
        },
      },
      async (request, reply) => {
        const id = parseProductId(request.params.product_id);
        const row = await services.writes.update(id, request.body);
        if (!row) throw new NotFoundError(`product ${id} not found`);
        return writer.respond(request, reply, { status: 200, body: reply.serialize(atelierProduct(row)) as string });
      },
    );

    app.delete<{ Params: ProductParams }>(
      '/products/:product_id',
      {
        schema: {
          summary: 'Delete a product with its features, styles and related rows',
          security: bearerAuth,
          params: productIdParams,
          response: { 204: { type: 'null' }, ...writeErrors },
        },
      },
      async (request, reply) => {
        const id = parseProductId(request.params.product_id);
        if (!(await services.writes.delete(id))) throw new NotFoundError(`product ${id} not found`);
        return writer.respond(request, reply, NO_CONTENT);
      },
    );
  };
}
