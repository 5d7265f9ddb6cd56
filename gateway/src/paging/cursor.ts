import { PRODUCT_TEXT_MAX_LENGTH } from '@catalog/contract';
import { BadInputError } from '../errors.js';
import { isStorableText } from '../validation/text.js';
import { PRODUCT_SORTS, isProductSortName, type ProductSortName, type SortColumn } from './product-sort.js';

/** A position in a sorted product list: the sort key of the last row seen (null: no price) and its id. */
export interface ListPosition {
  key: string | null;
  id: number;
}

const ID_PREFIX = 'product:';

/**
 * What a sort key must look like, as the repository renders it (see product-listing.ts): a name
 * key reaches SQL as text, so it gets the checks of any text a client sends.
 */
const KEY_CHECKS: Record<Exclude<SortColumn, 'id'>, (key: string) => boolean> = {
  default_price: (key) => /^-?\d{1,10}\.\d{2}$/.test(key),
  name: (key) => isStorableText(key, PRODUCT_TEXT_MAX_LENGTH.name),
  created_at: (key) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(key),
};

/** Longer than any cursor issued here (a name key of the longest name, every character JSON-escaped, in base64url). */
const MAX_CURSOR_LENGTH = 4 * 1024;

/**
 * Opaque connection cursors, base64url. In id order: `product:<id>` (the format cursors always
 * had, so cursors handed out before sorts existed stay valid). In any other order: the JSON
 * array [sort, key, id], so a cursor of one sort is recognised, and refused, under another.
 */
export function encodeCursor(sort: ProductSortName, key: string | null, id: number): string {
  const text = sort === 'ID_ASC' ? `${ID_PREFIX}${id}` : JSON.stringify([sort, key, id]);
  return Buffer.from(text).toString('base64url');
}

export function decodeCursor(cursor: string, sort: ProductSortName, argument = 'after'): ListPosition {
  const notOurs = () => new BadInputError(`${argument}: "${cursor.slice(0, 100)}" is not a cursor this API returned`);
  if (cursor.length > MAX_CURSOR_LENGTH) throw notOurs();
  const text = Buffer.from(cursor, 'base64url').toString();
  const [cursorSort, key, id] = text.startsWith(ID_PREFIX) ? ['ID_ASC', null, Number(text.slice(ID_PREFIX.length))] : parseJson(text);
  if (typeof cursorSort !== 'string' || !isProductSortName(cursorSort) || !Number.isSafeInteger(id)) throw notOurs();
  // Exactly as issued: base64url and JSON spell one position many ways, and bytes that are not
  // UTF-8 decode to U+FFFD, so anything else was not made here.
  if (encodeCursor(cursorSort, key as string | null, id as number) !== cursor) throw notOurs();
  if (cursorSort !== sort) {
    throw new BadInputError(`${argument}: the cursor belongs to a list sorted by ${cursorSort}, not ${sort}; restart from the first page`);
  }
  const { column } = PRODUCT_SORTS[sort];
  const keyValid = column === 'id' || (typeof key === 'string' && KEY_CHECKS[column](key)) || (key === null && column === 'default_price');
  if (!keyValid) throw notOurs();
  return { key: key as string | null, id: id as number };
}

function parseJson(text: string): unknown[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.length === 3 ? value : [];
  } catch {
    return [];
  }
}
