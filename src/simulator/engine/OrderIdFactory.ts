import { encodeBase58, ORDER_ID_BYTES } from '../../protocol';
import type { Prng } from './Prng';

/** Deterministic order ids: a seeded 20-byte prefix followed by the 8-byte big-endian placement number. @internal */
export class OrderIdFactory {
  private readonly bytes: Uint8Array;

  constructor(rng: Prng) {
    this.bytes = new Uint8Array(ORDER_ID_BYTES);
    this.bytes.set(rng.bytes(20));
    this.bytes[0] = this.bytes[0]! | 0x80;
  }

  make(seq: number): string {
    let v = BigInt(seq);
    for (let i = ORDER_ID_BYTES - 1; i >= 20; i--, v >>= 8n) this.bytes[i] = Number(v & 0xffn);
    return encodeBase58(this.bytes);
  }
}
