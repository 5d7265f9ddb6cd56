/**
 * Limits on catalog values that both sides enforce: the loader when it checks CSV rows, the
 * gateway when it checks ids in requests and product input.
 */

/** Ids (of every table) have up to 15 digits: every such id is exact as a JSON number (2^53 has 16). */
export const ID_MAX_DIGITS = 15;

/** A product id as text: a positive integer of at most ID_MAX_DIGITS digits, no leading zero. */
export const PRODUCT_ID_PATTERN = `^[1-9][0-9]{0,${ID_MAX_DIGITS - 1}}$`;

/** Prices are numeric(12, 2) in schema.sql: at most 10 digits before the point and 2 after. */
export const PRICE_INTEGER_DIGITS = 10;
export const PRICE_FRACTION_DIGITS = 2;
export const PRICE_MAX = 9_999_999_999.99;

/**
 * Maximum lengths of a product's text fields as written through the gateway. They stay within
 * the gateway's default 64 KiB body limit, so what is allowed can actually be sent.
 */
export const PRODUCT_TEXT_MAX_LENGTH = {
  name: 1_000,
  slogan: 10_000,
  description: 30_000,
  category: 1_000,
} as const;
