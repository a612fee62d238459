// A snapshot's refs, by ref: a table that a diff's walk makes from the walk before it in what
// changed, not in the whole page. A 20k-element page's refs put into a new Map cost 3–8 ms of
// the relay's part of a diff, where the walk that changed one field sent one line; a table made
// from another keeps it (never changed after) and holds only the refs that went and came.
// Pure: unit-tested (ref-table.test.ts).

/** Past this many tables on top of one another, or this share of changes, a table is made whole. */
const DEPTH_MAX = 8;
const CHANGED_SHARE = 4;

export class RefTable<V> {
  private constructor(
    private readonly base: RefTable<V> | undefined,
    private readonly own: Map<string, V>,
    /** Refs of `base` this table does not hold (unless `own` holds them again). */
    private readonly gone: ReadonlySet<string>,
    readonly size: number,
    private readonly depth: number,
  ) {}

  static of<V>(entries: Iterable<readonly [string, V]>): RefTable<V> {
    return RefTable.owning(new Map(entries));
  }

  /** A table of the map's entries, which it takes: nothing else may change the map after. */
  static owning<V>(own: Map<string, V>): RefTable<V> {
    return new RefTable<V>(undefined, own, new Set(), own.size, 0);
  }

  get(ref: string): V | undefined {
    const value = this.own.get(ref);
    if (value !== undefined || this.base === undefined || this.gone.has(ref)) return value;
    return this.base.get(ref);
  }

  has(ref: string): boolean {
    return this.get(ref) !== undefined;
  }

  /** Each ref once: those kept from the tables below first, then this one's own. */
  *entries(): IterableIterator<[string, V]> {
    if (this.base)
      for (const entry of this.base.entries()) if (!this.gone.has(entry[0]) && !this.own.has(entry[0])) yield entry;
    yield* this.own;
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries();
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  /** This table with `gone` taken out, then `added` put in (a ref in both: its new value); this one stays as it is. */
  changed(gone: Iterable<string>, added: Iterable<readonly [string, V]>): RefTable<V> {
    const taken = new Set<string>();
    let size = this.size;
    for (const ref of gone) if (!taken.has(ref) && this.has(ref)) (taken.add(ref), size--);
    const own = new Map<string, V>();
    for (const [ref, value] of added) {
      const held = own.has(ref) || (!taken.has(ref) && this.has(ref));
      if (!held) size++;
      own.set(ref, value);
    }
    const next = new RefTable<V>(this, own, taken, size, this.depth + 1);
    return next.depth > DEPTH_MAX || (own.size + taken.size) * CHANGED_SHARE > size
      ? RefTable.of(next.entries())
      : next;
  }
}
