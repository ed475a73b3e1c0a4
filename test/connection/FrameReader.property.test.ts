/**
 * `FrameReader` against a plain model: any sequence of server frames (text with any Unicode,
 * binary, fragmented messages with control frames between the fragments, frames of every
 * length encoding), cut into reads at random points and fed through ONE reused read buffer
 * (as `onread` does), reports exactly the messages the model says, in order. And every kind
 * of broken frame is refused with its close code, whatever came before it.
 */
import fc from 'fast-check';
import { FrameReader, type FrameSink } from '../../src/connection/node/FrameReader';

type Event = ['text', string] | ['binary', string] | ['ping', string] | ['pong'] | ['close', number, string] | ['violation', string, number];

function recorder(): { sink: FrameSink; events: Event[] } {
  const events: Event[] = [];
  return {
    events,
    sink: {
      text: (t) => void events.push(['text', t]),
      binary: (d) => void events.push(['binary', Buffer.from(d).toString('hex')]),
      ping: (p) => void events.push(['ping', Buffer.from(p).toString('hex')]),
      pong: () => void events.push(['pong']),
      close: (code, reason) => void events.push(['close', code, reason]),
      violation: (e) => void events.push(['violation', e.code, e.closeCode]),
    },
  };
}

/** One unmasked server frame. */
function frame(opcode: number, payload: Uint8Array, fin = true, extra = 0): Buffer {
  const n = payload.length;
  const head = n < 126 ? [n] : n < 65536 ? [126, n >> 8, n & 255] : [127, 0, 0, 0, 0, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | extra | opcode, ...head]), Buffer.from(payload)]);
}

/** Feeds `bytes` in reads cut at `cuts`, each read copied into the same scratch buffer (then clobbered). */
function feed(reader: FrameReader, bytes: Buffer, cuts: number[]): void {
  const scratch = Buffer.alloc(Math.max(1, bytes.length));
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...points, bytes.length]) {
    if (to <= from) continue;
    bytes.copy(scratch, 0, from, to);
    reader.push(scratch, to - from);
    scratch.fill(0xee);
    from = to;
  }
}

type Message =
  | { kind: 'text'; text: string; parts: number }
  | { kind: 'binary'; data: Uint8Array; parts: number }
  | { kind: 'ping'; data: Uint8Array }
  | { kind: 'pong' };

const sizeArb = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 140 }) }, { weight: 1, arbitrary: fc.integer({ min: 65530, max: 65545 }) }, { weight: 1, arbitrary: fc.constant(70_000) });
const messageArb: fc.Arbitrary<Message> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('text' as const), text: fc.string({ unit: 'binary', maxLength: 60 }), parts: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('text' as const), text: sizeArb.map((n) => 'é'.repeat(Math.floor(n / 2))), parts: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('binary' as const), data: fc.tuple(sizeArb, fc.integer({ min: 0, max: 255 })).map(([n, seed]) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255)), parts: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('ping' as const), data: fc.uint8Array({ maxLength: 125 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pong' as const) }) },
);

/** Frames of a message sequence (a fragmented message gets a ping between its fragments) and what the model expects. */
function encode(messages: readonly Message[]): { bytes: Buffer; expected: Event[] } {
  const frames: Buffer[] = [];
  const expected: Event[] = [];
  for (const m of messages) {
    if (m.kind === 'ping') {
      frames.push(frame(0x9, m.data));
      expected.push(['ping', Buffer.from(m.data).toString('hex')]);
      continue;
    }
    if (m.kind === 'pong') {
      frames.push(frame(0xa, new Uint8Array()));
      expected.push(['pong']);
      continue;
    }
    const payload = m.kind === 'text' ? Buffer.from(m.text, 'utf8') : Buffer.from(m.data);
    const step = Math.ceil(payload.length / m.parts) || 1;
    const pieces: Buffer[] = [];
    for (let i = 0; i < m.parts; i++) pieces.push(payload.subarray(Math.min(i * step, payload.length), Math.min((i + 1) * step, payload.length)));
    pieces.forEach((p, i) => {
      frames.push(frame(i === 0 ? (m.kind === 'text' ? 1 : 2) : 0, p, i === pieces.length - 1));
      if (i === 0 && pieces.length > 1) frames.push(frame(0x9, Buffer.from('mid')));
    });
    if (pieces.length > 1) expected.push(['ping', Buffer.from('mid').toString('hex')]);
    // A text cut inside a multi-byte character is whole again once joined: the message is what counts.
    expected.push(m.kind === 'text' ? ['text', payload.toString('utf8')] : ['binary', payload.toString('hex')]);
  }
  return { bytes: Buffer.concat(frames), expected };
}

describe('FrameReader', () => {
  test('any frame sequence, cut anywhere, through one reused read buffer, reads as the model says', () => {
    fc.assert(
      fc.property(fc.array(messageArb, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 30 }), (messages, cuts) => {
        const { bytes, expected } = encode(messages);
        const r = recorder();
        feed(new FrameReader(r.sink, 1 << 20), bytes, cuts);
        expect(r.events).toEqual(expected);
      }),
      { seed: 0x5eed, numRuns: 150 },
    );
  });

  test('a close frame ends the reading: code and reason reported, nothing after it', () => {
    const r = recorder();
    const reason = Buffer.from('bye ✓');
    const body = Buffer.concat([Buffer.from([0x0f, 0xa0]), reason]);
    feed(new FrameReader(r.sink, 1000), Buffer.concat([frame(1, Buffer.from('a')), frame(8, body), frame(1, Buffer.from('b'))]), [3, 5]);
    expect(r.events).toEqual([['text', 'a'], ['close', 4000, 'bye ✓']]);
    const e = recorder();
    new FrameReader(e.sink, 1000).push(frame(8, new Uint8Array()), 2);
    expect(e.events).toEqual([['close', 1005, '']]);
  });

  const broken: [string, string, number, Buffer][] = [
    ['a masked server frame', 'WS_ERR_UNEXPECTED_MASK', 1002, Buffer.from([0x81, 0x81, 1, 2, 3, 4, 0x61])],
    ['RSV bits without an extension', 'WS_ERR_UNEXPECTED_RSV_1', 1002, frame(1, Buffer.from('x'), true, 0x40)],
    ['an unknown opcode', 'WS_ERR_INVALID_OPCODE', 1002, frame(3, Buffer.from('x'))],
    ['an unknown control opcode', 'WS_ERR_INVALID_OPCODE', 1002, frame(0xb, Buffer.from('x'))],
    ['a continuation with nothing to continue', 'WS_ERR_INVALID_OPCODE', 1002, frame(0, Buffer.from('x'))],
    ['a new message inside a fragmented one', 'WS_ERR_INVALID_OPCODE', 1002, Buffer.concat([frame(1, Buffer.from('a'), false), frame(1, Buffer.from('b'))])],
    ['a fragmented ping', 'WS_ERR_EXPECTED_FIN', 1002, frame(9, Buffer.from('x'), false)],
    ['a ping of 126 bytes', 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH', 1002, frame(9, Buffer.alloc(126))],
    ['a close frame of one byte', 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH', 1002, frame(8, Buffer.from([3]))],
    ['close code 1005 on the wire', 'WS_ERR_INVALID_CLOSE_CODE', 1002, frame(8, Buffer.from([0x03, 0xed]))],
    ['close code 2000', 'WS_ERR_INVALID_CLOSE_CODE', 1002, frame(8, Buffer.from([0x07, 0xd0]))],
    ['text that is not UTF-8', 'WS_ERR_INVALID_UTF8', 1007, frame(1, Buffer.from([0x61, 0xff, 0x62]))],
    ['fragmented text that is not UTF-8 once joined', 'WS_ERR_INVALID_UTF8', 1007, Buffer.concat([frame(1, Buffer.from([0xe2, 0x82]), false), frame(0, Buffer.from([0x41]))])],
    ['a close reason that is not UTF-8', 'WS_ERR_INVALID_UTF8', 1007, frame(8, Buffer.from([0x03, 0xe8, 0xc3]))],
    ['a message over the limit', 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 1009, frame(2, Buffer.alloc(101))],
    ['fragments over the limit together', 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 1009, Buffer.concat([frame(1, Buffer.alloc(60, 0x61), false), frame(0, Buffer.alloc(41, 0x61))])],
    ['a 64-bit length beyond 2^53', 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 1009, Buffer.from([0x82, 127, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])],
  ];

  test.each(broken)('%s: refused with %s (close code %d) after the good frames before it, nothing read after it', (_label, code, closeCode, bad) => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 6 }), (cuts) => {
        const r = recorder();
        feed(new FrameReader(r.sink, 100), Buffer.concat([frame(1, Buffer.from('ok')), bad, frame(1, Buffer.from('after'))]), cuts);
        expect(r.events).toEqual([['text', 'ok'], ['violation', code, closeCode]]);
      }),
      { seed: 7, numRuns: 40 },
    );
  });

  test('an oversized frame is refused on its header alone, before its payload arrives', () => {
    const r = recorder();
    new FrameReader(r.sink, 1000).push(Buffer.from([0x82, 126, 0x10, 0x00]), 4);
    expect(r.events).toEqual([['violation', 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 1009]]);
  });

  test('a real U+FFFD in a text is kept (only invalid bytes are refused)', () => {
    const r = recorder();
    new FrameReader(r.sink, 1000).push(frame(1, Buffer.from('a\uFFFDb')), frame(1, Buffer.from('a\uFFFDb')).length);
    expect(r.events).toEqual([['text', 'a\uFFFDb']]);
  });
});
