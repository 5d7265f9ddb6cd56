import { PRICE_INTEGER_DIGITS, PRODUCT_TEXT_MAX_LENGTH } from '@catalog/contract';
import { BadInputError } from '../errors.js';
import { canonicalPrice, isPriceText } from '../validation/price.js';
import { checkStorableText } from '../validation/text.js';

/** A product list filter as clients send it (GraphQL `ProductFilter`, REST query parameters). */
export interface ProductFilterInput {
  category?: string | null;
  minPrice?: string | null;
  maxPrice?: string | null;
  search?: string | null;
}

/**
 * A checked filter in canonical form: two inputs that select the same products give equal
 * filters (prices as `20.00`, the search's words in one order), the fields always in this order.
 */
export interface ProductFilter {
  category?: string;
  minPrice?: string;
  maxPrice?: string;
  /** Every word of the search as a prefix, all required, sorted and without repeats: `camo:* & one:*`. */
  searchQuery?: string;
}

export const SEARCH_MAX_LENGTH = 100;
export const SEARCH_MAX_WORDS = 8;

/** How the caller spells each filter field, so errors name what the client sent. */
export type FilterFieldNames = Record<keyof ProductFilterInput, string>;

function parsePrice(value: string, name: string): string {
  if (isPriceText(value)) return canonicalPrice(value);
  if (/^-\d/.test(value)) throw new BadInputError(`${name} must not be negative, got "${value}"`);
  throw new BadInputError(
    `${name} must be a decimal price such as "19.99" (at most ${PRICE_INTEGER_DIGITS} digits before the point), got "${value.slice(0, 40)}"`,
  );
}

/**
 * The words of a name search (letters and digits; everything else separates words), each
 * matched as a word prefix in the name: the full-text index then finds them. All are required,
 * so their order and repeats do not matter: they are sorted and counted once.
 */
function parseSearch(value: string, name: string): string {
  checkStorableText(value, name, SEARCH_MAX_LENGTH);
  const words = new Set(
    value
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu),
  );
  if (words.size === 0) throw new BadInputError(`${name} must contain a letter or digit`);
  if (words.size > SEARCH_MAX_WORDS) throw new BadInputError(`${name} has more than ${SEARCH_MAX_WORDS} words`);
  return [...words]
    .sort()
    .map((word) => `${word}:*`)
    .join(' & ');
}

export function parseProductFilter(input: ProductFilterInput, names: FilterFieldNames): ProductFilter {
  const filter: ProductFilter = {};
  if (input.category != null) filter.category = checkStorableText(input.category, names.category, PRODUCT_TEXT_MAX_LENGTH.category);
  if (input.minPrice != null) filter.minPrice = parsePrice(input.minPrice, names.minPrice);
  if (input.maxPrice != null) filter.maxPrice = parsePrice(input.maxPrice, names.maxPrice);
  if (filter.minPrice !== undefined && filter.maxPrice !== undefined && Number(filter.minPrice) > Number(filter.maxPrice)) {
    throw new BadInputError(`${names.minPrice} (${input.minPrice}) is greater than ${names.maxPrice} (${input.maxPrice})`);
  }
  if (input.search != null) filter.searchQuery = parseSearch(input.search, names.search);
  return filter;
}
