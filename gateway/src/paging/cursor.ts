import { BadInputError } from '../errors.js';

const PREFIX = 'product:';

/** Opaque connection cursors: base64url of the last product id seen. */
export function encodeCursor(id: number): string {
  return Buffer.from(`${PREFIX}${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const id = Number(text.slice(PREFIX.length));
  if (!text.startsWith(PREFIX) || !Number.isSafeInteger(id) || text !== `${PREFIX}${id}`) {
    throw new BadInputError(`after: "${cursor}" is not a cursor this API returned`);
  }
  return id;
}
