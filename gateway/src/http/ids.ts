import { BadInputError } from '../errors.js';

const ID_TEXT = /^[1-9][0-9]{0,15}$/;

/** A product id from a URL or GraphQL argument: a positive integer that fits a JSON number. */
export function parseProductId(value: string | number, name = 'product_id'): number {
  const text = String(value);
  const id = Number(text);
  if (!ID_TEXT.test(text) || !Number.isSafeInteger(id)) {
    throw new BadInputError(`${name} must be a positive integer up to ${Number.MAX_SAFE_INTEGER}, got "${text}"`);
  }
  return id;
}
