/**
 * A small seeded pseudo-random generator (mulberry32 over a 32-bit state, seeds spread by
 * splitmix32). The simulator never calls `Math.random`: every random choice comes from one
 * of these, so the same seed gives the same world and the same order flow. @internal
 */
export class Prng {
  private state: number;

  /** @param seed any integer; two generators with the same seed produce the same sequence. */
  constructor(seed: number) {
    this.state = splitmix32(seed >>> 0);
  }

  /** A generator whose 32-bit state is `seed` mixed by a plain xor (the fault schedules' seeding, kept so their replays stay the same). */
  static xorSeeded(seed: number): Prng {
    const g = new Prng(0);
    g.state = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
    return g;
  }

  /** A uniform unsigned 32-bit integer. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** A uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** A uniform element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** `n` random bytes. */
  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      let v = this.nextU32();
      for (let j = 0; j < 4 && i + j < n; j++, v >>>= 8) out[i + j] = v & 0xff;
    }
    return out;
  }

  /** A new generator whose sequence is independent of this one's later use. */
  fork(salt: number): Prng {
    return new Prng((this.nextU32() ^ Math.imul(salt, 0x9e3779b9)) >>> 0);
  }
}

function splitmix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}
