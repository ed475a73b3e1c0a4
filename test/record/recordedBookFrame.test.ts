/**
 * The in-place reader of a recorded `book` update (recordedBookFrame.ts) against the fast
 * decoder on the unescaped text: on any text it gives the fast decoder's values or nothing
 * (the replay then takes the general path), and on every compact book frame it gives them.
 */
import fc from 'fast-check';
import { fastDecodeServerFrame } from '../../src/protocol/fastDecode';
import { UINT64_MAX } from '../../src/protocol/scalars';
import { readRecordedBookUpdate } from '../../src/record/recordedBookFrame';
import { decodeFrames } from '../../src/record/recordedFrames';

const MAX = String(UINT64_MAX);
const uint64 = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: UINT64_MAX }).map(String) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  { weight: 3, arbitrary: fc.constantFrom('0', '1', MAX, '18446744073709551616', '99999999999999999999', '9007199254740993', '007', '000000000000000000001', '') },
);
const level = fc.record({ price_ticks: uint64, size_base_lots: uint64 });
const levels = fc.array(level, { maxLength: 5 });
const subscriptionId = fc.oneof({ weight: 5, arbitrary: fc.nat().map(String) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) });

/** A book frame as the server writes it (the compact form), with the values given. */
const compact = (id: string, seq: string, ts: string, bids: readonly { price_ticks: string; size_base_lots: string }[], asks: typeof bids): string =>
  `{"type":"update","subscription_id":${JSON.stringify(id)},"channel":"book","seq":"${seq}","timestamp_ns":"${ts}","data":${JSON.stringify({ bids, asks })}}`;

/** The entry line of a frame, and where its escaped text is in it. */
function entry(text: string): { line: string; start: number; end: number } {
  const line = JSON.stringify(['m', 12.5, 1, text]);
  const start = line.indexOf(',"', line.indexOf(',', line.indexOf(',', 5) + 1)) + 2;
  return { line, start, end: line.length - 2 };
}

function expectSameAsFastDecoder(text: string): 'read' | 'left' {
  const { line, start, end } = entry(text);
  const read = readRecordedBookUpdate(line, start, end);
  if (read === undefined) return 'left';
  const fast = fastDecodeServerFrame(text);
  expect(fast.ok).toBe(true);
  if (!fast.ok || fast.frame.type !== 'update' || fast.frame.channel !== 'book') throw new Error(`the fast decoder does not read ${text} as a book update`);
  expect(fast.dataValidated).toBe(true);
  expect({ subscriptionId: read.subscriptionId, seq: read.seq, timestampNs: read.timestampNs, data: read.data, size: read.size }).toEqual({
    subscriptionId: fast.frame.subscription_id,
    seq: fast.frame.seq,
    timestampNs: fast.frame.timestamp_ns,
    data: fast.frame.data,
    size: text.length,
  });
  return 'read';
}

test('a compact book frame is read in place, with the fast decoder values, whenever the fast decoder takes it', () => {
  fc.assert(
    fc.property(subscriptionId, uint64, uint64, levels, levels, (id, seq, ts, bids, asks) => {
      const text = compact(id, seq, ts, bids, asks);
      const how = expectSameAsFastDecoder(text);
      const fast = fastDecodeServerFrame(text);
      // Read in place exactly when the fast decoder reads it as validated book data (no escape in the id, values the schema takes, no price twice).
      expect(how === 'read').toBe(fast.ok && fast.dataValidated && fast.frame.type === 'update');
    }),
    { numRuns: 2000 },
  );
});

test('any change to the compact form leaves the frame to the general path, or reads the same values', () => {
  const base = compact('7', '42', '1790000000000000000', [{ price_ticks: '100', size_base_lots: '5' }], [{ price_ticks: '101', size_base_lots: '6' }]);
  fc.assert(
    fc.property(fc.nat({ max: base.length - 1 }), fc.constantFrom('', ' ', '"', '\\', 'x', '0', ',', '}', ']', '\u0000', 'é'), fc.boolean(), (at, insert, replace) => {
      const text = base.slice(0, at) + insert + base.slice(replace ? at + 1 : at);
      expectSameAsFastDecoder(text);
    }),
    { numRuns: 3000 },
  );
});

test('named cases: what is read and what is left', () => {
  const level = (p: string, s: string) => ({ price_ticks: p, size_base_lots: s });
  expect(expectSameAsFastDecoder(compact('1', '1', '2', [], []))).toBe('read');
  expect(expectSameAsFastDecoder(compact('1', MAX, MAX, [level(MAX, MAX)], []))).toBe('read');
  // Above 2^64 - 1, a price twice (also spelled differently), an escape in the id: the general path decides.
  expect(expectSameAsFastDecoder(compact('1', '18446744073709551616', '2', [], []))).toBe('left');
  expect(expectSameAsFastDecoder(compact('1', '1', '2', [level('5', '1'), level('5', '2')], []))).toBe('left');
  expect(expectSameAsFastDecoder(compact('1', '1', '2', [], [level('7', '1'), level('8', '1'), level('007', '2')]))).toBe('left');
  expect(expectSameAsFastDecoder(compact('a"b', '1', '2', [], []))).toBe('left');
  // The quote written as \u0022 in the entry: the same text, but not the form read in place.
  const text = compact('1', '1', '2', [level('5', '1')], []);
  const line = JSON.stringify(['m', 1, 1, text]).replace('\\"type', '\\u0022type');
  const start = line.indexOf(',"', 8) + 2;
  expect(readRecordedBookUpdate(line, start, line.length - 2)).toBeUndefined();
});

test('decodeFrames gives the same events from in-place reads as from the general path', () => {
  // A `book` subscription read in place, and the same frames read as another channel's would be (the general path: a `bbo` query finds them invalid).
  const frames = [compact('1', '1', '10', [{ price_ticks: '100', size_base_lots: '5' }], []), compact('1', '2', '11', [], [{ price_ticks: '101', size_base_lots: '0' }]), '{"type":"resync_required","subscription_id":"1","channel":"book","reason":"gap"}', compact('1', '3', '12', [{ price_ticks: '7', size_base_lots: '1' }, { price_ticks: '7', size_base_lots: '2' }], [])];
  const lines = frames.flatMap((f, i) => [JSON.stringify(['m', i + 1, 1, f]), JSON.stringify(['n', String(1000n + BigInt(i))])]);
  const items = decodeFrames({ lines, baseOrder: 100, firstLine: 0, socket: 1, subscriptionId: '1', channel: 'book', wallNs: () => 0n });
  expect(items.map((i) => [i.order, i.at, i.event])).toEqual([
    [100, 1, { kind: 'update', seq: 1n, timestampNs: 10n, receivedAtNs: 1000n, data: { bids: [{ price_ticks: '100', size_base_lots: '5' }], asks: [] }, size: frames[0]!.length }],
    [102, 2, { kind: 'update', seq: 2n, timestampNs: 11n, receivedAtNs: 1001n, data: { bids: [], asks: [{ price_ticks: '101', size_base_lots: '0' }] }, size: frames[1]!.length }],
    [104, 3, { kind: 'resync_required', reason: 'gap' }],
    // A price listed twice: invalid, as the router would find it live.
    [106, 4, { kind: 'resync_required', reason: 'invalid_update' }],
  ]);
});

test("decodeFrames takes the subscription's frames only, on its socket (ids that share a prefix, other sockets)", () => {
  const f = (id: string, seq: number) => compact(id, String(seq), '10', [{ price_ticks: String(100 + seq), size_base_lots: '1' }], []);
  const lines = [JSON.stringify(['m', 1, 1, f('10', 1)]), JSON.stringify(['m', 2, 1, f('1', 2)]), JSON.stringify(['m', 3, 2, f('1', 3)]), JSON.stringify(['m', 4, 1, f('1', 4)]), JSON.stringify(['m', 5, 1, f('a"b', 5)]), JSON.stringify(['m', 6, 11, f('1', 6)])];
  const seqs = (socket: number, subscriptionId: string) => decodeFrames({ lines, baseOrder: 0, firstLine: 0, socket, subscriptionId, channel: 'book', wallNs: () => 0n }).map((i) => (i.event.kind === 'update' ? i.event.seq : i.event.reason));
  expect(seqs(1, '1')).toEqual([2n, 4n]);
  expect(seqs(1, '10')).toEqual([1n]);
  expect(seqs(2, '1')).toEqual([3n]);
  expect(seqs(11, '1')).toEqual([6n]);
});
