/**
 * Fuzzer of the Node socket's reading and writing (`FrameReader` + `FrameWriter`), seeded:
 * random server frame sequences (messages in any number of fragments of any size, floods of
 * empty fragments, pings and pongs between the fragments, pings far faster than the server
 * reads the pongs), cut into reads anywhere and fed through one reused read buffer, with the
 * client's own sends and the server's reads interleaved. After EVERY step:
 *
 * - the bytes the reader holds (allocated, not just used) stay within the message limit and
 *   one read, whatever the fragment count: `2 * maxPayload + read + fixed overhead`;
 * - the bytes waiting to be written stay within `maxQueuedWriteBytes` plus one control frame;
 *
 * and the reader reports exactly what a plain model says (the messages, the pings, then the
 * first limit passed, if any, and nothing after it), and the latest ping is answered once
 * the server has read everything (RFC 6455 5.5.3).
 *
 * `npm test` runs a fixed seed quickly; `FUZZ_RUNS=5000 FUZZ_SEED=123 npx jest
 * test/connection/socketMemory.fuzz.test.ts` runs longer or elsewhere.
 */
import fc from 'fast-check';
import { FrameReader, type FrameSink } from '../../src/connection/node/FrameReader';
import { FrameWriter, type WritableSocket } from '../../src/connection/node/FrameWriter';

const SEED = Number(process.env.FUZZ_SEED ?? 0x50c7e7);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
jest.setTimeout(Math.max(120_000, RUNS * 200));

const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;
/** Largest read handed to the reader here (the Node socket's is 64 KiB). */
const MAX_READ = 4096;
/** A frame's longest header, and the smallest buffer the reader allocates. */
const FIXED_OVERHEAD = 14 + 256;
/** A masked control frame with the largest payload (125 bytes). */
const CONTROL_FRAME_BYTES = 6 + 125;

/** One unmasked server frame. */
function frame(opcode: number, payload: Uint8Array, fin = true): Buffer {
  const n = payload.length;
  const head = n < 126 ? [n] : n < 65536 ? [126, n >> 8, n & 255] : [127, 0, 0, 0, 0, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode, ...head]), payload]);
}

/** A masked client frame, unmasked. */
function readClientFrame(bytes: Buffer): { opcode: number; payload: Buffer } {
  let size = bytes[1]! & 0x7f;
  let header = 2;
  if (size === 126) (size = bytes.readUInt16BE(2)), (header = 4);
  else if (size === 127) (size = Number(bytes.readBigUInt64BE(2))), (header = 10);
  const mask = bytes.subarray(header, header + 4);
  const payload = Buffer.from(bytes.subarray(header + 4, header + 4 + size)).map((b, i) => b ^ mask[i & 3]!);
  return { opcode: bytes[0]! & 0x0f, payload: Buffer.from(payload) };
}

/**
 * The client's TCP socket as the writer sees it: the kernel takes a write whole when nothing
 * waits before it and it fits in the kernel's free space (all-or-nothing, simpler than libuv,
 * same bound); otherwise it waits in the queue (`writableLength`). The server reading frees
 * kernel space; completions run on the next tick, as Node's do.
 */
class FakeTcp implements WritableSocket {
  writableLength = 0;
  /** Every frame written, in wire order. */
  readonly written: Buffer[] = [];
  private kernelUsed = 0;
  private readonly queue: { length: number; done: () => void }[] = [];
  private completed: (() => void)[] = [];

  constructor(private readonly kernelBytes: number) {}

  write(data: Uint8Array, callback: (error?: Error | null) => void): boolean {
    this.written.push(Buffer.from(data));
    const done = () => callback(null);
    if (this.queue.length === 0 && this.kernelUsed + data.length <= this.kernelBytes) {
      this.kernelUsed += data.length;
      this.completed.push(done);
      return true;
    }
    this.queue.push({ length: data.length, done });
    this.writableLength += data.length;
    return false;
  }

  /** The server reads `n` bytes: kernel space frees up, waiting writes move in and complete. */
  serverReads(n: number): void {
    this.kernelUsed = Math.max(0, this.kernelUsed - n);
    while (this.queue.length > 0 && this.kernelUsed + this.queue[0]!.length <= this.kernelBytes) {
      const w = this.queue.shift()!;
      this.kernelUsed += w.length;
      this.writableLength -= w.length;
      this.completed.push(w.done);
    }
  }

  /** Runs the completions due; whether there were any. */
  tick(): boolean {
    const due = this.completed;
    this.completed = [];
    due.forEach((f) => f());
    return due.length > 0;
  }
}

type Event = ['message', number, string] | ['ping', string] | ['pong'] | ['violation', string];

/** What the server sends: a message (its fragments' sizes, controls after some of them), or a lone control frame. */
type Item =
  | { kind: 'message'; opcode: number; sizes: number[]; between: ('ping' | 'pong' | 'none')[] }
  | { kind: 'pings'; tags: number[] }
  | { kind: 'pong' };

interface Limits {
  maxPayload: number;
  maxFragments: number;
  maxQueued: number;
  kernel: number;
}

const limitsArb: fc.Arbitrary<Limits> = fc
  .record({ maxPayload: fc.constantFrom(64, 300, 4096, 70_000), maxFragments: fc.integer({ min: 1, max: 40 }), maxQueued: fc.constantFrom(200, 1024, 8192), kernelFactor: fc.integer({ min: 1, max: 4 }) })
  .map(({ kernelFactor, ...l }) => ({ ...l, kernel: l.maxQueued * kernelFactor }));

function itemArb(l: Limits): fc.Arbitrary<Item> {
  // Mostly within the limits (so that runs go on after many messages), sometimes past them.
  const size = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: 8 }) }, { weight: 6, arbitrary: fc.integer({ min: 0, max: Math.ceil(l.maxPayload / 4) }) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: l.maxPayload + 10 }) });
  const fragments = fc.oneof(
    { weight: 12, arbitrary: fc.array(size, { minLength: 1, maxLength: l.maxFragments }) },
    { weight: 1, arbitrary: fc.array(size, { minLength: 1, maxLength: l.maxFragments + 2 }) },
    // A flood of empty fragments, up to and past the count limit.
    { weight: 1, arbitrary: fc.integer({ min: l.maxFragments, max: l.maxFragments * 3 + 2 }).map((n) => Array<number>(n).fill(0)) },
  );
  return fc.oneof(
    { weight: 4, arbitrary: fragments.chain((sizes) => fc.record({ kind: fc.constant('message' as const), opcode: fc.constantFrom(OP_TEXT, OP_BINARY), sizes: fc.constant(sizes), between: fc.array(fc.constantFrom('ping' as const, 'pong' as const, 'none' as const, 'none' as const), { minLength: sizes.length, maxLength: sizes.length }) })) },
    // Pings in bursts: far more of them than the server lets pongs drain.
    { weight: 3, arbitrary: fc.array(fc.nat(1_000_000), { minLength: 1, maxLength: 150 }).map((tags) => ({ kind: 'pings' as const, tags })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'pong' as const }) },
  );
}

/** A ping's payload: its tag, padded to 1-125 bytes. */
const pingPayload = (tag: number): Buffer => Buffer.from(`${tag}:`.padEnd(1 + (tag % 125), '.'));

/** The bytes of `items` and what the reader must report for them (nothing after the first limit passed). */
function encode(items: readonly Item[], l: Limits): { bytes: Buffer; expected: Event[] } {
  const frames: Buffer[] = [];
  const expected: Event[] = [];
  let stopped = false;
  const control = (kind: 'ping' | 'pong', tag: number) => {
    if (kind === 'ping') {
      frames.push(frame(OP_PING, pingPayload(tag)));
      if (!stopped) expected.push(['ping', pingPayload(tag).toString()]);
    } else {
      frames.push(frame(OP_PONG, new Uint8Array()));
      if (!stopped) expected.push(['pong']);
    }
  };
  items.forEach((item, n) => {
    if (item.kind === 'pong') return control('pong', 0);
    if (item.kind === 'pings') return item.tags.forEach((tag) => control('ping', tag));
    let total = 0;
    item.sizes.forEach((size, i) => {
      const last = i === item.sizes.length - 1;
      frames.push(frame(i === 0 ? item.opcode : OP_CONTINUATION, Buffer.alloc(size, 0x61 + (n % 26)), last));
      if (!stopped && i >= l.maxFragments) (stopped = true), expected.push(['violation', 'WS_ERR_TOO_MANY_FRAGMENTS']);
      if (!stopped && total + size > l.maxPayload) (stopped = true), expected.push(['violation', 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH']);
      total += size;
      if (!last && item.between[i] !== 'none') control(item.between[i] as 'ping' | 'pong', n * 1000 + i);
    });
    if (!stopped) expected.push(['message', item.opcode, String.fromCharCode(0x61 + (n % 26)).repeat(total)]);
  });
  return { bytes: Buffer.concat(frames), expected };
}

/** A step between reads: the client sends, the server reads some bytes, or Node runs completions. */
type Op = { op: 'read'; bytes: number } | { op: 'serverReads'; bytes: number } | { op: 'tick' } | { op: 'send'; bytes: number };

function opArb(l: Limits): fc.Arbitrary<Op> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: MAX_READ }).map((bytes) => ({ op: 'read' as const, bytes })) },
    // The server reads little and seldom: pongs and sends pile up behind it.
    { weight: 1, arbitrary: fc.integer({ min: 1, max: Math.ceil(l.kernel / 4) }).map((bytes) => ({ op: 'serverReads' as const, bytes })) },
    { weight: 2, arbitrary: fc.constant({ op: 'tick' as const }) },
    // Frames of at most maxQueued bytes (the client's commands are small).
    { weight: 3, arbitrary: fc.integer({ min: 0, max: l.maxQueued - 8 }).map((bytes) => ({ op: 'send' as const, bytes })) },
  );
}

const caseArb = limitsArb.chain((l) => fc.record({ limits: fc.constant(l), items: fc.array(itemArb(l), { minLength: 1, maxLength: 40, size: 'medium' }), ops: fc.array(opArb(l), { maxLength: 300, size: 'medium' }) }));

describe('socket memory fuzzer (FrameReader + FrameWriter)', () => {
  test(`bytes held and queued stay within the limits after every step (seed ${SEED}, ${RUNS} runs)`, () => {
    fc.assert(
      fc.property(caseArb, ({ limits: l, items, ops }) => {
        const { bytes, expected } = encode(items, l);
        const tcp = new FakeTcp(l.kernel);
        const writer = new FrameWriter(tcp, l.maxQueued, (into) => void into.fill(0x5a));
        const events: Event[] = [];
        let closed = false;
        const sink: FrameSink = {
          text: (t) => void events.push(['message', OP_TEXT, t]),
          binary: (d) => void events.push(['message', OP_BINARY, Buffer.from(d).toString('latin1')]),
          ping: (p) => {
            events.push(['ping', Buffer.from(p).toString()]);
            writer.pong(p);
          },
          pong: () => void events.push(['pong']),
          close: () => undefined,
          violation: (e) => {
            events.push(['violation', e.code]);
            // As the socket does: a close frame, and nothing written after it.
            writer.close(Buffer.from([e.closeCode >> 8, e.closeCode & 255]));
            closed = true;
          },
        };
        const reader = new FrameReader(sink, l.maxPayload, l.maxFragments);
        const scratch = Buffer.alloc(MAX_READ);
        let at = 0;
        const read = (n: number) => {
          const end = Math.min(bytes.length, at + n);
          bytes.copy(scratch, 0, at, end);
          reader.push(scratch, end - at);
          // The reader must have copied what it keeps: the read buffer is reused.
          scratch.fill(0xee);
          at = end;
        };
        const check = (step: string) => {
          const held = reader.bufferedBytes;
          if (!(held <= 2 * l.maxPayload + MAX_READ + FIXED_OVERHEAD)) throw new Error(`${step}: the reader holds ${held} bytes (maxPayload ${l.maxPayload})`);
          const queued = writer.queuedBytes;
          if (!(queued <= l.maxQueued + CONTROL_FRAME_BYTES)) throw new Error(`${step}: ${queued} bytes wait to be written (maxQueuedWriteBytes ${l.maxQueued})`);
        };
        for (const op of ops) {
          if (op.op === 'read') read(op.bytes);
          else if (op.op === 'serverReads') tcp.serverReads(op.bytes);
          else if (op.op === 'tick') tcp.tick();
          else {
            const before = tcp.writableLength;
            const sent = writer.send(OP_TEXT, Buffer.alloc(op.bytes, 0x7a));
            // Refused exactly when something waits and the frame would take the queue past the limit (after a close, dropped).
            const frameBytes = op.bytes + (op.bytes < 126 ? 6 : 8);
            expect(sent).toBe(closed || !(before > 0 && before + frameBytes > l.maxQueued));
          }
          check(op.op);
        }
        while (at < bytes.length) {
          read(MAX_READ);
          tcp.tick();
          check('read');
        }
        expect(events).toEqual(expected);
        // The server reads everything: the queue empties, and the latest ping has its pong.
        do {
          tcp.serverReads(Number.MAX_SAFE_INTEGER);
        } while (tcp.tick());
        check('drained');
        expect(writer.queuedBytes).toBe(0);
        const pings = events.filter((e): e is ['ping', string] => e[0] === 'ping');
        const written = tcp.written.map(readClientFrame);
        const pongs = written.filter((f) => f.opcode === OP_PONG).map((f) => f.payload.toString());
        expect(pongs.length).toBeLessThanOrEqual(pings.length);
        expect(written.some((f) => f.opcode === OP_CLOSE)).toBe(closed);
        if (!closed && pings.length > 0) expect(pongs[pongs.length - 1]).toBe(pings[pings.length - 1]![1]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
