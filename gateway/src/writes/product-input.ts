import { PRICE_MAX, PRODUCT_TEXT_MAX_LENGTH } from '@catalog/contract';
import { BadInputError } from '../errors.js';
import type { ProductFields } from '../repository/products.js';
import { createAjv, validationMessage } from '../validation/ajv.js';
import { PRICE_PATTERN } from '../validation/price.js';
import { storableTextSchema } from '../validation/text.js';

/**
 * The one definition of product input, used by the REST bodies (and so the OpenAPI document) and
 * by the GraphQL mutations: what may be stored without being altered on the way into Postgres.
 * A rule may carry the message a client sees (`errorMessage`, see validation/ajv.ts).
 */

/** Text Postgres stores as given (validation/text.ts); a name is never empty. */
const text = (maxLength: number, nullable: boolean) => storableTextSchema(maxLength, { nullable, minLength: nullable ? 0 : 1 });

/** numeric(12,2): a price with more decimals would be rounded by Postgres. */
const price = {
  anyOf: [
    { type: 'string', pattern: PRICE_PATTERN },
    { type: 'number', minimum: 0, maximum: PRICE_MAX, multipleOf: 0.01 },
    { type: 'null' },
  ],
  description: 'price, e.g. "140.00" or 140',
  errorMessage: `must be a price with at most two decimals, e.g. "140.00" or 140, from 0 to ${PRICE_MAX}`,
} as const;

const writableProductProperties = {
  name: text(PRODUCT_TEXT_MAX_LENGTH.name, false),
  slogan: text(PRODUCT_TEXT_MAX_LENGTH.slogan, true),
  description: text(PRODUCT_TEXT_MAX_LENGTH.description, true),
  category: text(PRODUCT_TEXT_MAX_LENGTH.category, true),
  default_price: price,
} as const;

export const createProductBody = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: writableProductProperties,
} as const;

export const updateProductBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: writableProductProperties,
} as const;

const ajv = createAjv({ allErrors: false });
const validateCreate = ajv.compile(createProductBody);
const validateUpdate = ajv.compile(updateProductBody);

export interface ProductInput {
  name?: string | null;
  slogan?: string | null;
  description?: string | null;
  category?: string | null;
  defaultPrice?: string | null;
}

/** GraphQL input (camelCase) → validated product fields (the REST names). */
export function productFieldsFromInput(input: ProductInput, purpose: 'create' | 'update'): ProductFields {
  const fields = Object.fromEntries(
    Object.entries({
      name: input.name,
      slogan: input.slogan,
      description: input.description,
      category: input.category,
      default_price: input.defaultPrice,
    }).filter(([, value]) => value !== undefined),
  );
  const validate = purpose === 'create' ? validateCreate : validateUpdate;
  if (!validate(fields)) {
    const problem = validationMessage(validate.errors ?? []);
    const field = (problem?.path.replace(/^\//, '') || 'input').replace('default_price', 'defaultPrice');
    throw new BadInputError(`invalid input: ${field} ${problem?.message ?? 'is invalid'}`);
  }
  return fields as ProductFields;
}
