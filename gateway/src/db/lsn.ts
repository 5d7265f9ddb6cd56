/**
 * A WAL position (Postgres `pg_lsn`) as a `bigint`, so positions compare with `<`/`>=`. Postgres
 * writes one as two hexadecimal halves, `X/Y` (`16/B374D848` is 0x16_B374D848).
 */
export type Lsn = bigint;

/** Beyond every real position: what the primary has "replayed" (everything committed on it). */
export const LSN_MAX: Lsn = 0xffff_ffff_ffff_ffffn;

const LSN_TEXT = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** `X/Y` as Postgres prints a `pg_lsn` → the position; anything else is a bug (a wrong column), so it throws. */
export function parseLsn(text: string): Lsn {
  const match = LSN_TEXT.exec(text);
  if (!match) throw new RangeError(`"${text}" is not a WAL position (X/Y in hexadecimal)`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** The position as Postgres prints it (for logs and SQL). */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffff_ffffn).toString(16).toUpperCase()}`;
}
