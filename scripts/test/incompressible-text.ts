import { createHash } from 'node:crypto';

/** CJK Unified Ideographs Extension B: letters, 4 bytes each in UTF-8. */
const FIRST = 0x20000;
const COUNT = 0xa6e0;

/**
 * `characters` code points of 4 UTF-8 bytes each, drawn from a stream seeded by `seed`: the
 * worst case for an index key, as no compressor shrinks them (Postgres compresses a long key
 * before checking its size) and each character takes the most bytes. One word: no spaces.
 */
export function incompressibleText(characters: number, seed: string): string {
  const codePoints: number[] = [];
  for (let block = 0; codePoints.length < characters; block++) {
    const bytes = createHash('sha256').update(`${seed}:${block}`).digest();
    for (let offset = 0; offset < bytes.length && codePoints.length < characters; offset += 2) {
      codePoints.push(FIRST + (bytes.readUInt16BE(offset) % COUNT));
    }
  }
  return String.fromCodePoint(...codePoints);
}
