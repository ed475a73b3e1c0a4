/** utf8ByteLength counts what Node's encoder (and TextEncoder) writes, without a Buffer. */
import fc from 'fast-check';
import { utf8ByteLength } from '../../src/util/utf8ByteLength';

describe('utf8ByteLength', () => {
  test('known cases: ASCII, 2-, 3- and 4-byte characters, lone surrogates', () => {
    expect(utf8ByteLength('')).toBe(0);
    expect(utf8ByteLength('abc')).toBe(3);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
    expect(utf8ByteLength('\ud800')).toBe(3);
    expect(utf8ByteLength('\udc00x')).toBe(4);
  });

  test('equals the encoded length for any string (seeded)', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) }), (a, b) => {
        expect(utf8ByteLength(a)).toBe(encoder.encode(a).byteLength);
        expect(utf8ByteLength(b)).toBe(encoder.encode(b).byteLength);
        expect(utf8ByteLength(b)).toBe(Buffer.byteLength(b, 'utf8'));
      }),
      { seed: 20240611, numRuns: 2_000 },
    );
  });
});
