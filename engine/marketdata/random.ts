/**
 * A small seeded pseudo-random generator (sfc32) with normal, gamma and Student-t draws, so that generated
 * market data is the same on every run for the same seed.
 */

/** Four 32-bit words hashed from a string (cyrb128), used as the generator's state. */
export function hash128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** A seeded stream of random numbers; two instances built from the same key draw the same sequence. */
export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | null = null;

  /** Seeds the stream from a key, e.g. `${seed}:${symbol}`. */
  constructor(key: string) {
    [this.a, this.b, this.c, this.d] = hash128(key);
    // The first outputs of sfc32 still show the seed's structure; skip them.
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  /** The next unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform draw in the open interval (0, 1). */
  uniform(): number {
    return (this.nextUint32() + 0.5) / 4294967296;
  }

  /** A uniform integer in `[0, n)`. */
  int(n: number): number {
    return Math.floor(this.uniform() * n);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.uniform() < p;
  }

  /** A standard normal draw (Marsaglia's polar method). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * this.uniform() - 1;
      v = 2 * this.uniform() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    this.spare = v * f;
    return u * f;
  }

  /** A Gamma(shape, 1) draw (Marsaglia and Tsang). */
  gamma(shape: number): number {
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(this.uniform(), 1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = this.normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = this.uniform();
      if (u < 1 - 0.0331 * x * x * x * x) return d * v;
      if (Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  /** A Student-t draw with `nu` degrees of freedom. */
  studentT(nu: number): number {
    return this.normal() / Math.sqrt((2 * this.gamma(nu / 2)) / nu);
  }

  /** A Student-t draw with `nu` > 2 degrees of freedom scaled to unit variance. */
  unitStudentT(nu: number): number {
    return this.studentT(nu) * Math.sqrt((nu - 2) / nu);
  }
}

/** A generator for one named stream of a seed, e.g. `streamOf(42, 'AAPL')`. */
export function streamOf(seed: number, name: string): Random {
  return new Random(`${seed}:${name}`);
}
