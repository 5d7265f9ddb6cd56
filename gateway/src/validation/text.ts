import { textLength } from '@catalog/contract';
import { BadInputError } from '../errors.js';

/**
 * The checks every client text reaching SQL gets, written or only read (a filter, a search, a
 * cursor's key): Postgres takes it as given. It cannot hold a NUL (the statement fails), and an
 * unpaired UTF-16 surrogate leaves as U+FFFD (stored or compared altered).
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\ud800-\\udfff]*$';
export const STORABLE_TEXT_MESSAGE = 'must not contain NUL bytes or unpaired surrogates';
const STORABLE_TEXT = new RegExp(STORABLE_TEXT_PATTERN, 'u');

/** JSON schema of such a text, at most `maxLength` characters (code points); in bodies (writes) and query strings (reads). */
export function storableTextSchema(maxLength: number, { nullable = false, minLength = 0 } = {}) {
  return {
    type: nullable ? ['string', 'null'] : 'string',
    ...(minLength > 0 ? { minLength } : {}),
    maxLength,
    pattern: STORABLE_TEXT_PATTERN,
    errorMessage: { pattern: STORABLE_TEXT_MESSAGE },
  };
}

/** The same checks outside a schema (GraphQL arguments, decoded cursors): a 400 naming `name` when one fails. */
export function checkStorableText(value: string, name: string, maxLength: number): string {
  if (isTooLong(value, maxLength)) throw new BadInputError(`${name} is longer than ${maxLength} characters`);
  if (!STORABLE_TEXT.test(value)) throw new BadInputError(`${name} ${STORABLE_TEXT_MESSAGE}`);
  return value;
}

/** Whether `value` passes the checks (for callers that report the failure in their own words). */
export function isStorableText(value: string, maxLength: number): boolean {
  return !isTooLong(value, maxLength) && STORABLE_TEXT.test(value);
}

/** Counted in code points, as JSON Schema's maxLength counts; a text whose UTF-16 length fits fits in code points too. */
const isTooLong = (value: string, maxLength: number): boolean => value.length > maxLength && textLength(value) > maxLength;
