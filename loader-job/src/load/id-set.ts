/** Ids up to this bound live in the bitset (16 MiB at most); the rare larger id goes to a Set. */
const DENSE_LIMIT = 1 << 27;

/**
 * The ids loaded from one file. The export's ids are dense from 1, so a growable bitset holds
 * 12M skus in 1.5 MB where a Set<number> would need hundreds of MB; outliers past the dense
 * range still work through a small Set.
 */
export class IdSet {
  private bits = new Uint8Array(1 << 16);
  private readonly sparse = new Set<number>();

  has(id: number): boolean {
    if (id >= DENSE_LIMIT) return this.sparse.has(id);
    const byte = id >>> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (id & 7))) !== 0;
  }

  add(id: number): void {
    if (id >= DENSE_LIMIT) {
      this.sparse.add(id);
      return;
    }
    const byte = id >>> 3;
    if (byte >= this.bits.length) this.grow(byte);
    this.bits[byte]! |= 1 << (id & 7);
  }

  private grow(byte: number): void {
    let size = this.bits.length;
    while (size <= byte) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bits);
    this.bits = grown;
  }
}
