/**
 * Allocation-free checks for values already in the exact form COPY (CSV, NULL 'null') stores
 * unchanged. Most rows of a real export pass them all and are sent to Postgres as read;
 * anything else takes the slower repair-or-reject path.
 */

const ZERO = 48;
const NINE = 57;
const DOT = 46;
const SPACE = 32;

/** The value of a canonical positive integer (no sign, padding or leading zero) of at most `maxDigits`, else -1. */
export function canonicalPositiveInteger(value: string, maxDigits: number): number {
  const length = value.length;
  if (length === 0 || length > maxDigits || value.charCodeAt(0) === ZERO) return -1;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code < ZERO || code > NINE) return -1;
  }
  return Number(value);
}

/** Digits with an optional fraction, at most `maxIntegerDigits` before the point. */
export function isCanonicalDecimal(value: string, maxIntegerDigits: number): boolean {
  const length = value.length;
  let index = 0;
  while (index < length) {
    const code = value.charCodeAt(index);
    if (code < ZERO || code > NINE) break;
    index++;
  }
  if (index === 0 || index > maxIntegerDigits) return false;
  if (index === length) return true;
  if (value.charCodeAt(index) !== DOT || index === length - 1) return false;
  for (index++; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code < ZERO || code > NINE) return false;
  }
  return true;
}

/** Non-empty text with no surrounding whitespace, no NUL, and not the literal `null`. */
export function isCanonicalText(value: string): boolean {
  const length = value.length;
  return (
    length > 0 &&
    value.charCodeAt(0) > SPACE &&
    value.charCodeAt(length - 1) > SPACE &&
    value !== 'null' &&
    value !== 'NULL' &&
    value.indexOf('\u0000') === -1
  );
}
