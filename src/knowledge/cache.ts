/**
 * What search keeps of knowledge bases in the process (their vectors, their words' document
 * frequencies), bounded by size: the least recently used base goes first when a new entry would
 * pass the budget. An entry larger than the whole budget is not kept (the caller uses it once).
 */
export class SizedLru<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private used = 0;

  constructor(readonly budget: number) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: re-inserting makes it the most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, size: number): void {
    this.delete(key);
    if (size > this.budget) return;
    for (const [oldest, entry] of this.entries) {
      if (this.used + size <= this.budget) break;
      this.entries.delete(oldest);
      this.used -= entry.size;
    }
    this.entries.set(key, { value, size });
    this.used += size;
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.used -= entry.size;
  }

  /** Bytes (or whatever unit sizes are given in) held now. */
  get size(): number {
    return this.used;
  }

  keys(): K[] {
    return [...this.entries.keys()];
  }
}
