/**
 * Seeded integer PRNG (sfc32): 32-bit integer maths only (Math.imul, >>> 0), so every
 * JavaScript engine draws the same sequence for the same seed. The state is four
 * integers, plain data, so it is checkpointed with the rest of the kernel.
 */
export type PrngState = [number, number, number, number];

export function seedPrng(seed: number): PrngState {
  // splitmix32 spreads a small seed over the four words.
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const state: PrngState = [next(), next(), next(), next()];
  for (let i = 0; i < 12; i++) nextUint32(state);
  return state;
}

/** Next 32-bit unsigned integer; advances `state` in place. */
export function nextUint32(state: PrngState): number {
  const [a, b, c, d] = state;
  const t = (((a + b) >>> 0) + d) >>> 0;
  state[3] = (d + 1) >>> 0;
  state[0] = (b ^ (b >>> 9)) >>> 0;
  state[1] = (c + (c << 3)) >>> 0;
  const r = ((c << 21) | (c >>> 11)) >>> 0;
  state[2] = (r + t) >>> 0;
  return t;
}

/** Integer in [0, n) for 0 < n <= 2^32, without modulo bias. */
export function nextInt(state: PrngState, n: number): number {
  if (n <= 1) return 0;
  const limit = Math.floor(0x100000000 / n) * n;
  for (;;) {
    const x = nextUint32(state);
    if (x < limit) return x % n;
  }
}
