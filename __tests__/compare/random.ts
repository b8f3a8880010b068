/**
 * A seeded pseudo-random generator for simulations in tests: the same seed
 * gives the same stream on every machine, so coverage figures are reproducible.
 */

/** Uniform numbers in [0, 1) from a 32-bit seed (a SplitMix32-style mixer over a Weyl sequence). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x9e3779b9) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    z = (z ^ (z >>> 16)) >>> 0
    return z / 2 ** 32
  }
}

/** Standard normal variates by the Box–Muller transform. */
export function seededNormal(random: () => number): () => number {
  return () => {
    const u = 1 - random() // (0, 1]: log(0) never happens
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
  }
}
