import { BadInputError } from '../errors.js';

/** Up to 15 digits: every such id is exact as a JSON number (2^53 has 16). The OpenAPI document states the same pattern. */
export const PRODUCT_ID_PATTERN = '^[1-9][0-9]{0,14}$';
const ID_TEXT = new RegExp(PRODUCT_ID_PATTERN);

/** A product id from a URL or GraphQL argument: a positive integer that fits a JSON number. */
export function parseProductId(value: string | number, name = 'product_id'): number {
  const text = String(value);
  const id = Number(text);
  if (!ID_TEXT.test(text) || !Number.isSafeInteger(id)) {
    throw new BadInputError(`${name} must be a positive integer of at most 15 digits, got "${text}"`);
  }
  return id;
}
