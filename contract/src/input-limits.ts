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
 * Name and category are keys of the storefront btree indexes (constraints.sql), and Postgres
 * refuses a btree entry over 2,704 bytes (a third of the default 8 KiB page, less a heap tid):
 * the insert, update or index build fails. It compresses a long key first, but text that does
 * not compress (random multibyte characters) is stored as is, so the limits must hold for raw
 * UTF-8 at 4 bytes a character. The largest entry is (category, name, id), both at their limit:
 *   8 (tuple header) + 4 + 4 * 250 (category) + at most 3 (alignment) + 4 + 4 * 250 (name)
 *   + at most 7 (alignment) + 8 (id) <= 2,034 bytes <= 2,704.
 * The name's full-text index (GIN) keys are its lower-cased words: a character lower-cases to at
 * most 5 bytes (ICU's Lithuanian rules turn U+00CC into i, U+0307, U+0300), so a word is at most
 * 1,250 bytes, under both the 2,047 bytes of a lexeme and the 2,712 of a GIN entry.
 * Lengths count characters (Unicode code points), as JSON Schema's maxLength does.
 */
export const INDEXED_TEXT_MAX_LENGTH = {
  name: 250,
  category: 250,
} as const;

/**
 * Maximum lengths of a product's text fields as written through the gateway, in characters.
 * They stay within the gateway's default 64 KiB body limit, so what is allowed can be sent.
 */
export const PRODUCT_TEXT_MAX_LENGTH = {
  ...INDEXED_TEXT_MAX_LENGTH,
  slogan: 10_000,
  description: 30_000,
} as const;

/**
 * A text's length in characters: code points, as JSON Schema's maxLength counts them, not
 * UTF-16 units. A text whose `.length` is within a limit is within it in characters too.
 */
export function textLength(text: string): number {
  return [...text].length;
}
