/*
 * Randomness and the daily rhythm of the simulated device. Everything that must look the same
 * after a restart (the backfilled past, the first population) comes from a seeded generator;
 * what happens from then on uses the injectable live random source.
 */

export type Random = () => number;

/** Small fast seeded generator (mulberry32): same seed, same sequence. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Integer hash of two numbers to [0, 1): the lattice values of the value noise. */
function hashUnit(seed: number, key: number, index: number): number {
  let h = (seed ^ Math.imul(key + 1, 0x9e3779b1)) >>> 0;
  const lo = index >>> 0;
  const hi = Math.floor(index / 4294967296) >>> 0;
  h = Math.imul(h ^ lo, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13) ^ hi, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x27d4eb2f);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

/**
 * Smooth noise in [-1, 1] over time: random values every `scaleMs`, eased in between. The
 * same (seed, key, t) always gives the same value, so a past can be rebuilt at any resolution.
 */
export function valueNoise(seed: number, key: number, t: number, scaleMs: number): number {
  const x = t / scaleMs;
  const i = Math.floor(x);
  const f = x - i;
  const ease = f * f * (3 - 2 * f);
  const a = hashUnit(seed, key, i) * 2 - 1;
  const b = hashUnit(seed, key, i + 1) * 2 - 1;
  return a + (b - a) * ease;
}

/** Standard normal deviate (Box-Muller). */
export function gaussian(random: Random): number {
  const u = Math.max(random(), 1e-12);
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length) % items.length]!;
}

/**
 * How busy the network is at this local time, 0 (small hours) to about 0.8 (afternoon and
 * evening): a daily wave with an evening bump, a little quieter at weekends.
 */
export function activity(ms: number): number {
  const d = new Date(ms);
  const hour = d.getHours() + d.getMinutes() / 60;
  const daily = 0.5 - 0.5 * Math.cos((2 * Math.PI * (hour - 4.5)) / 24);
  const evening = 0.25 * Math.exp(-((hour - 21) ** 2) / 4.5);
  const level = Math.min(1, daily * 0.8 + evening);
  const weekend = d.getDay() === 0 || d.getDay() === 6;
  return weekend ? level * 0.9 + 0.03 : level;
}
