/**
 * A set of seqs as one flag byte per seq: O(1) without hashing, for the seqs of one log (dense,
 * from 1). What `SurfaceState` and the invariants' state keep to know which events are visible.
 */
export class SeqFlags {
  private flags: Uint8Array;

  /** An empty set, or one holding `seqs`. */
  constructor(seqs: Iterable<number> = []) {
    this.flags = new Uint8Array(1024);
    for (const seq of seqs) this.add(seq);
  }

  /** True when `seq` is in the set. */
  has(seq: number): boolean {
    return seq >= 0 && seq < this.flags.length && this.flags[seq] === 1;
  }

  /** Adds `seq` (a non-negative integer). */
  add(seq: number): void {
    if (seq >= this.flags.length) this.grow(seq);
    this.flags[seq] = 1;
  }

  /** Removes `seq`. */
  delete(seq: number): void {
    if (seq >= 0 && seq < this.flags.length) this.flags[seq] = 0;
  }

  /** The seqs in the set, ascending. */
  values(): number[] {
    const seqs: number[] = [];
    for (let seq = 0; seq < this.flags.length; seq += 1) if (this.flags[seq] === 1) seqs.push(seq);
    return seqs;
  }

  private grow(seq: number): void {
    let size = this.flags.length * 2;
    while (size <= seq) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.flags);
    this.flags = grown;
  }
}
