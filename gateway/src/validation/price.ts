import { PRICE_FRACTION_DIGITS, PRICE_INTEGER_DIGITS } from '@catalog/contract';

/** A price as text: a non-negative decimal that fits default_price (numeric(12,2)) without rounding. */
export const PRICE_PATTERN = `^[0-9]{1,${PRICE_INTEGER_DIGITS}}(\\.[0-9]{1,${PRICE_FRACTION_DIGITS}})?$`;
const PRICE = new RegExp(PRICE_PATTERN);

export const isPriceText = (value: string): boolean => PRICE.test(value);

/** A price text (`isPriceText`) in its one canonical spelling: `020`, `20`, `20.0` and `20.00` are all `20.00`. */
export function canonicalPrice(value: string): string {
  const [whole = '', fraction = ''] = value.split('.');
  return `${whole.replace(/^0+(?=\d)/, '')}.${fraction.padEnd(PRICE_FRACTION_DIGITS, '0')}`;
}
