/** Past this many remembered tags, they are folded into the floor. */
const MOST_REMEMBERED_TAGS = 50_000;

/**
 * The newest position (an invalidation seq, a WAL position) each tag was announced at, in
 * bounded memory: past 50,000 tags they are all forgotten and the floor rises to the newest of
 * them. A caller treats the floor as what every tag may have reached, so forgetting only ever
 * makes it more careful.
 */
export class NewestPerTag<Position extends number | bigint> {
  /** Oldest first. */
  private readonly newest = new Map<string, Position>();

  constructor(private floorPosition: Position) {}

  get floor(): Position {
    return this.floorPosition;
  }

  /** The newest position heard for `tag`; undefined when nothing above the floor is known. */
  get(tag: string): Position | undefined {
    return this.newest.get(tag);
  }

  note(tag: string, position: Position): void {
    const known = this.newest.get(tag);
    if (known !== undefined && known >= position) return;
    this.newest.delete(tag);
    this.newest.set(tag, position);
    if (this.newest.size > MOST_REMEMBERED_TAGS) {
      for (const newest of this.newest.values()) this.raiseFloor(newest);
      this.newest.clear();
    }
  }

  raiseFloor(position: Position): void {
    if (position > this.floorPosition) this.floorPosition = position;
  }

  /** Forgets every tag and starts again from `floor`. */
  reset(floor: Position): void {
    this.newest.clear();
    this.floorPosition = floor;
  }
}
