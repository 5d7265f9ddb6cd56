import { Ajv } from 'ajv';
import { BadInputError } from '../errors.js';
import type { ProductFields } from '../repository/products.js';
import { createProductBody, updateProductBody } from '../rest/schemas.js';

// GraphQL inputs are checked against the same rules as the REST bodies.
const ajv = new Ajv({ allErrors: false, strict: false });
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
    const [error] = validate.errors ?? [];
    const field = (error?.instancePath.replace(/^\//, '') || 'input').replace('default_price', 'defaultPrice');
    throw new BadInputError(`invalid input: ${field} ${error?.message ?? 'is invalid'}`);
  }
  return fields as ProductFields;
}
