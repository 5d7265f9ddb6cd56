import { PRICE_FRACTION_DIGITS, PRICE_INTEGER_DIGITS, PRODUCT_TEXT_MAX_LENGTH, textLength } from '@catalog/contract';
import { BadInputError } from '../errors.js';

/** A product list filter as clients send it (GraphQL `ProductFilter`, REST query parameters). */
export interface ProductFilterInput {
  category?: string | null;
  minPrice?: string | null;
  maxPrice?: string | null;
  search?: string | null;
}

/** A checked filter: prices as canonical decimals, the search as a Postgres tsquery. */
export interface ProductFilter {
  category?: string;
  minPrice?: string;
  maxPrice?: string;
  /** Every word of the search as a prefix, all required: `camo:* & one:*`. */
  searchQuery?: string;
}

export const SEARCH_MAX_LENGTH = 100;
export const SEARCH_MAX_WORDS = 8;

/** How the caller spells each filter field, so errors name what the client sent. */
export type FilterFieldNames = Record<keyof ProductFilterInput, string>;

/** A price filter: a non-negative decimal that fits default_price. */
export const PRICE_PATTERN = `^[0-9]{1,${PRICE_INTEGER_DIGITS}}(\\.[0-9]{1,${PRICE_FRACTION_DIGITS}})?$`;
const PRICE = new RegExp(PRICE_PATTERN);

function parsePrice(value: string, name: string): string {
  if (PRICE.test(value)) return value;
  if (/^-\d/.test(value)) throw new BadInputError(`${name} must not be negative, got "${value}"`);
  throw new BadInputError(
    `${name} must be a decimal price such as "19.99" (at most ${PRICE_INTEGER_DIGITS} digits before the point), got "${value.slice(0, 40)}"`,
  );
}

/**
 * The words of a name search (letters and digits; everything else separates words), each
 * matched as a word prefix in the name: the full-text index then finds them.
 */
function parseSearch(value: string, name: string): string {
  if (value.length > SEARCH_MAX_LENGTH) throw new BadInputError(`${name} is longer than ${SEARCH_MAX_LENGTH} characters`);
  const words =
    value
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) throw new BadInputError(`${name} must contain a letter or digit`);
  if (words.length > SEARCH_MAX_WORDS) throw new BadInputError(`${name} has more than ${SEARCH_MAX_WORDS} words`);
  return words.map((word) => `${word}:*`).join(' & ');
}

export function parseProductFilter(input: ProductFilterInput, names: FilterFieldNames): ProductFilter {
  const filter: ProductFilter = {};
  if (input.category != null) {
    if (textLength(input.category) > PRODUCT_TEXT_MAX_LENGTH.category) {
      throw new BadInputError(`${names.category} is longer than ${PRODUCT_TEXT_MAX_LENGTH.category} characters`);
    }
    filter.category = input.category;
  }
  if (input.minPrice != null) filter.minPrice = parsePrice(input.minPrice, names.minPrice);
  if (input.maxPrice != null) filter.maxPrice = parsePrice(input.maxPrice, names.maxPrice);
  if (filter.minPrice !== undefined && filter.maxPrice !== undefined && Number(filter.minPrice) > Number(filter.maxPrice)) {
    throw new BadInputError(`${names.minPrice} (${filter.minPrice}) is greater than ${names.maxPrice} (${filter.maxPrice})`);
  }
  if (input.search != null) filter.searchQuery = parseSearch(input.search, names.search);
  return filter;
}
