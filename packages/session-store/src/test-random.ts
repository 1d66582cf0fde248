/** A deterministic generator for tests (xorshift32): the same numbers in [0, 1) on every run. */
export function random(seed: number): () => number {
  let state = seed;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}
