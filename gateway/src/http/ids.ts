import { ID_MAX_DIGITS, PRODUCT_ID_PATTERN } from '@catalog/contract';
import { BadInputError } from '../errors.js';

// The OpenAPI document (rest/schemas.ts) states the same pattern.
const ID_TEXT = new RegExp(PRODUCT_ID_PATTERN);

/** A product id from a URL or GraphQL argument: a positive integer that fits a JSON number. */
export function parseProductId(value: string | number, name = 'product_id'): number {
  const text = String(value);
  const id = Number(text);
  if (!ID_TEXT.test(text) || !Number.isSafeInteger(id)) {
    throw new BadInputError(`${name} must be a positive integer of at most ${ID_MAX_DIGITS} digits, got "${text}"`);
  }
  return id;
}
