/**
 * A WAL position as a `bigint`, so positions compare with `<`/`>=`: the timeline it was written on,
 * above the 64-bit LSN Postgres writes as two hexadecimal halves, `X/Y` (`16/B374D848` is
 * 0x16_B374D848 on its timeline). Past a promotion point, one LSN names different WAL on the old
 * timeline and on the new: with the timeline on top, every position a promoted primary writes is
 * past every position of the timeline it left, and a standby's replay position, named by the
 * timeline it streams, is short of every write on a later one, here and in every message that
 * carries a position to other gateways.
 */
export type Lsn = bigint;

/** Beyond every real position: what the primary has "replayed" (everything committed on it). */
export const LSN_MAX: Lsn = (1n << 96n) - 1n;

const LSN_TEXT = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;
const WAL_FILE = /^[0-9A-F]{24}$/i;

/** `X/Y` as Postgres prints a `pg_lsn` → the position on timeline 0; anything else is a bug (a wrong column), so it throws. */
export function parseLsn(text: string): Lsn {
  const match = LSN_TEXT.exec(text);
  if (!match) throw new RangeError(`"${text}" is not a WAL position (X/Y in hexadecimal)`);
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** `position` (X/Y) on `timeline`. */
export function onTimeline(timeline: number, position: string): Lsn {
  return (BigInt(timeline) << 64n) | parseLsn(position);
}

/** The timeline a WAL file's name (`TTTTTTTTXXXXXXXXYYYYYYYY`, from `pg_walfile_name`) says it belongs to. */
export function timelineOf(walFile: string): number {
  const timeline = Number.parseInt(walFile.slice(0, 8), 16);
  if (!WAL_FILE.test(walFile) || !(timeline > 0)) throw new RangeError(`"${walFile}" is not a WAL file name`);
  return timeline;
}

/** The timeline part of a position. */
export const timelineOfPosition = (lsn: Lsn): number => Number(lsn >> 64n);

/** The position as Postgres prints it (for logs and SQL), after its timeline when it has one. */
export function formatLsn(lsn: Lsn): string {
  const timeline = timelineOfPosition(lsn);
  const text = `${((lsn >> 32n) & 0xffff_ffffn).toString(16).toUpperCase()}/${(lsn & 0xffff_ffffn).toString(16).toUpperCase()}`;
  return timeline === 0 ? text : `${text} on timeline ${timeline}`;
}
