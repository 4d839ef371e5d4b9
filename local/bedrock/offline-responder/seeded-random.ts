import { createHash } from 'node:crypto';

/** A deterministic pseudo-random source. */
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max]. */
  integer(min: number, max: number): number;
  /** One of `items`, which must not be empty. */
  pick<T>(items: readonly T[]): T;
}

/**
 * mulberry32 seeded from the SHA-256 of `seed`: the same seed always yields the same answer and
 * the same fragment boundaries, so a failing test replays exactly.
 */
export function createSeededRandom(seed: string): SeededRandom {
  let state = createHash('sha256').update(seed).digest().readUInt32LE(0);
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const integer = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new RangeError('pick needs at least one item');
    return items[integer(0, items.length - 1)] as T;
  };
  return { next, integer, pick };
}
