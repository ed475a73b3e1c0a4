/** Deterministic identifiers: addresses, order ids and hashes, all from seeded bytes. @internal */
import { ADDRESS_BYTES, encodeBase58, ORDER_ID_BYTES } from '../../protocol';
import type { Prng } from './Prng';

/** A base58 address of 32 seeded bytes (first byte non-zero, so it never starts with '1'). */
export function makeAddress(rng: Prng): string {
  const b = rng.bytes(ADDRESS_BYTES);
  b[0] = b[0]! | 0x80;
  return encodeBase58(b);
}

/** A 32-byte hash as 64 lowercase hex characters (transaction and block hashes). */
export function makeHash(rng: Prng): string {
  return Buffer.from(rng.bytes(32)).toString('hex');
}

/** Order ids: a seeded 20-byte prefix followed by the 8-byte big-endian placement number. */
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
