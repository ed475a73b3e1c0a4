/**
 * A cheap, exact form of `isBase58OfLength` (scalars.ts) for the fast decoder: the Address
 * and OrderId checks of every order and fill record. `bs58` decodes and re-encodes (two
 * allocations, quadratic byte loops); here one pass over the digits in 24-bit limbs, no
 * allocation. @internal
 *
 * Why the re-encoding need not be checked: base58 text is `z` leading `1`s (zero bytes)
 * then digits whose first is not `1`; it decodes to `z` zero bytes then the minimal bytes of
 * the digits' value, and encoding those gives back `z` `1`s then the minimal digits of that
 * value, i.e. the same text. So canonical base58 of exactly `n` bytes is: only alphabet
 * characters, at least one, and `z` + (byte length of the value) = `n`. A test compares this
 * with `isBase58OfLength` on random and boundary texts.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Digit of each character code below 128, -1 for characters outside the alphabet. */
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
const LEADER = 49; // '1'
const LIMB_BITS = 24;
const LIMB_MASK = (1 << LIMB_BITS) - 1;
/**
 * No text longer than 3n characters decodes to n bytes (each digit after the leading `1`s
 * adds more than 5.8 bits, so at most 1.37n + 1 of them fit in n bytes, plus at most n `1`s).
 */
const MAX_CHARS_PER_BYTE = 3;
/** Limbs for the longest text looked at (3 x 32 bytes: 96 digits, 563 bits). */
const limbs = new Int32Array(32);

/**
 * True when `s` is canonical base58 of exactly `bytes` bytes (1 to 32), as
 * `isBase58OfLength(s, bytes)` decides. Never throws.
 *
 * @example
 * isBase58OfByteLength('11111111111111111111111111111111', 32) // => true (32 zero bytes)
 */
export function isBase58OfByteLength(s: string, bytes: number): boolean {
  const n = s.length;
  if (n === 0 || n > MAX_CHARS_PER_BYTE * bytes) return false;
  let z = 0;
  while (z < n && s.charCodeAt(z) === LEADER) z++;
  let used = 0;
  for (let i = z; i < n; i++) {
    const c = s.charCodeAt(i);
    const d = c < 128 ? DIGIT[c]! : -1;
    if (d < 0) return false;
    // value = value * 58 + d, limb by limb (each product stays below 2^30).
    let carry = d;
    for (let j = 0; j < used; j++) {
      const x = limbs[j]! * 58 + carry;
      limbs[j] = x & LIMB_MASK;
      carry = x >>> LIMB_BITS;
    }
    if (carry > 0) limbs[used++] = carry;
  }
  if (used === 0) return z === bytes;
  const bits = (used - 1) * LIMB_BITS + (32 - Math.clz32(limbs[used - 1]!));
  return z + ((bits + 7) >>> 3) === bytes;
}
