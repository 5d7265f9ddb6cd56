import { PRODUCT_ID_PATTERN, PRODUCT_TEXT_MAX_LENGTH } from '@catalog/contract';
import { SEARCH_MAX_LENGTH } from '../paging/product-filter.js';
import { REST_SORTS } from '../paging/product-sort.js';
import { PRICE_PATTERN } from '../validation/price.js';
import { storableTextSchema } from '../validation/text.js';

// JSON schemas of the REST routes: they validate input, document the API (OpenAPI at /docs/json)
// and compile the response serialisers, whose property order is the legacy key order.

const nullableString = { type: ['string', 'null'] } as const;
const price = { type: ['string', 'null'], description: 'decimal with two places, e.g. "140.00"' } as const;

export const productIdParams = {
  type: 'object',
  required: ['product_id'],
  properties: {
    product_id: { type: 'string', pattern: PRODUCT_ID_PATTERN, description: 'product id, a positive integer of at most 15 digits' },
  },
} as const;

/**
 * Query strings name exactly what an answer depends on: a parameter a route does not take is a
 * 400 naming it, never ignored (an ignored one would make a new cache entry of the same answer).
 * OpenAPI cannot state "no other parameters", so a GET route's description and an extension do.
 */
export const strictQueryDocs = {
  description: 'A query parameter the route does not take is a 400 naming it.',
  'x-additional-query-parameters': false,
} as const;

/** The query string of routes that take no parameters. */
export const noQuery = { type: 'object', additionalProperties: false, properties: {} } as const;

/** The list's parameters; any storefront one (all but page and count) switches it to a filtered, sorted list (paging/product-list-query.ts). */
export const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    page: { type: 'integer', minimum: 1, maximum: 100_000_000, default: 1 },
    count: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
    category: { ...storableTextSchema(PRODUCT_TEXT_MAX_LENGTH.category), description: 'only products of this category' },
    min_price: { type: 'string', pattern: PRICE_PATTERN, description: 'lowest default price, inclusive (decimal, e.g. "19.99")' },
    max_price: { type: 'string', pattern: PRICE_PATTERN, description: 'highest default price, inclusive' },
    q: { ...storableTextSchema(SEARCH_MAX_LENGTH), description: 'words of the name, each matched as a word prefix' },
    sort: { type: 'string', enum: REST_SORTS, description: 'order; ties broken by id; unpriced products last in price orders' },
  },
} as const;

const productProperties = {
  id: { type: 'integer' },
  campus: { type: 'string' },
  name: { type: 'string' },
  slogan: nullableString,
  description: nullableString,
  category: nullableString,
  default_price: price,
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
} as const;

export const productSchema = { type: 'object', properties: productProperties } as const;

export const productWithFeaturesSchema = {
  type: 'object',
  properties: {
    ...productProperties,
    features: {
      type: 'array',
      items: { type: 'object', properties: { feature: { type: 'string' }, value: nullableString } },
    },
  },
} as const;

export const stylesSchema = {
  type: 'object',
  properties: {
    product_id: { type: 'string' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          style_id: { type: 'integer' },
          name: { type: 'string' },
          original_price: price,
          sale_price: price,
          'default?': { type: 'boolean' },
          photos: {
            type: 'array',
            items: { type: 'object', properties: { thumbnail_url: nullableString, url: nullableString } },
          },
          skus: {
            type: 'object',
            description: 'keyed by sku id',
            additionalProperties: {
              type: 'object',
              properties: { quantity: { type: ['integer', 'null'] }, size: nullableString },
            },
          },
        },
      },
    },
  },
} as const;

export const relatedSchema = { type: 'array', items: { type: 'integer' } } as const;

export { createProductBody, updateProductBody } from '../writes/product-input.js';

export const errorSchema = {
  type: 'object',
  properties: { error: { type: 'string' } },
} as const;

export const badRequestSchema = { ...errorSchema, description: 'a bad or unknown parameter, named in `error`' } as const;
