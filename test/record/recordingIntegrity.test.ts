/**
 * A recording is trustworthy or refused: damage or an edit in the middle of a file is
 * ERR_RECORDING_INVALID naming the chunk (never a shorter or different replay), a chunk that
 * inflates past the bound is refused, an entry of an unknown kind is an error, and `done`
 * rejects when a replay stops on an error. A torn tail stays the one tolerated damage.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExchangeClient } from '../../src';
import type { WebSocketClientOptions, WebSocketLike, WsWebSocketConstructor } from '../../src/connection/connectionOptions';
import { ExchangeReplicaError } from '../../src/errors';
import { FeedRecorder, Recording, RecordingFormatError, Replayer, type ReplayOptions } from '../../src/record';
import { Simulator } from '../../src/simulator';
import { chunkTexts, encodeFile, regzip, replaceChunk, versionOneChunk } from './chunkSurgery';
import { EmissionLog, type EmissionTargets } from './emissionLog';
import { WAIT_MS } from '../helpers/deadlines';

jest.setTimeout(120_000);

const PERP = { market_type: 'perp', market_id: 0 } as const;
const targets: EmissionTargets = { markets: [PERP] };

let dir: string;
/** A recording of many small chunks, its bytes and its emissions. */
let base: { path: string; bytes: Buffer; lines: string[]; frames: number };
const clients: ExchangeClient[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'record-integrity-'));
  const sim = await Simulator.start({ seed: 4, eventsPerSecond: 300 });
  const path = join(dir, 'base.rec');
  const recorder = new FeedRecorder({ path, flushBytes: 4096 });
  const client = new ExchangeClient({ restUrl: sim.restUrl, record: recorder });
  const log = new EmissionLog(client, targets).start();
  await log.until(() => log.allLive() && log.of('book perp0').length > 80, '80 book emissions', WAIT_MS);
  log.stop();
  await client.close();
  await sim.stop();
  base = { path, bytes: readFileSync(path), lines: log.lines, frames: recorder.stats.frames };
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** Replays `path` with the base's subscriptions: the emission lines, and the result or the error. */
async function replay(path: string, options: ReplayOptions = {}, wrap?: (options: ReturnType<Replayer['clientOptions']>) => ReturnType<Replayer['clientOptions']>) {
  const replayer = new Replayer(path, options);
  const clientOptions = replayer.clientOptions();
  const client = new ExchangeClient(wrap ? wrap(clientOptions) : clientOptions);
  clients.push(client);
  const log = new EmissionLog(client, targets).start();
  const outcome = await replayer.start().then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  log.stop();
  return { lines: log.lines, replayer, ...outcome };
}

/** The error `f` throws (it must throw). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error, nothing was thrown');
}

function expectInvalid(e: unknown, chunk: number, message: RegExp): void {
  expect(e).toBeInstanceOf(RecordingFormatError);
  const error = e as RecordingFormatError;
  expect(error.code).toBe('ERR_RECORDING_INVALID');
  expect(error.chunk).toBe(chunk);
  expect(error.message).toMatch(new RegExp(`chunk ${chunk} `));
  expect(error.message).toMatch(message);
}

test('the base recording has many chunks and replays whole', async () => {
  const recording = Recording.open(base.path);
  expect(recording.chunks.length).toBeGreaterThan(8);
  expect(recording.torn).toBeUndefined();
  const { lines, result } = await replay(base.path);
  expect(result?.frames).toBe(base.frames);
  expect(lines).toEqual(base.lines);
});

test('8 overwritten bytes in a chunk in the middle: ERR_RECORDING_INVALID naming the chunk, wherever they land', () => {
  const chunks = Recording.open(base.path).chunks;
  const k = Math.floor(chunks.length / 2);
  const c = chunks[k]!;
  // The chunk's first bytes (gzip magic), its size field, its deflate data, its gzip trailer.
  for (const at of [c.offset, c.offset + 16, c.offset + Math.floor(c.size / 2), c.offset + c.size - 8]) {
    const damaged = Buffer.from(base.bytes);
    damaged.fill(0x41, at, at + 8);
    const path = file(`overwritten-${at}.rec`, damaged);
    expectInvalid(thrown(() => Recording.open(path)), k, /damaged or was edited/);
    expectInvalid(thrown(() => new Replayer(path)), k, /damaged or was edited/);
  }
});

test('a price edited in a chunk, recompressed into a valid gzip member: refused, naming the chunk', () => {
  const texts = chunkTexts(base.bytes);
  const k = texts.findIndex((t, i) => i >= texts.length / 2 && i < texts.length - 1 && /price_ticks\\":\\"\d+/.test(t));
  expect(k).toBeGreaterThan(0);
  const edited = texts[k]!.replace(/(price_ticks\\":\\"\d*)(\d)/, (_, head: string, digit: string) => `${head}${(Number(digit) + 1) % 10}`);
  expect(edited).not.toBe(texts[k]);
  const c = Recording.open(base.path).chunks[k]!;
  const path = file('edited.rec', replaceChunk(base.bytes, k, regzip(base.bytes.subarray(c.offset, c.offset + c.size), edited)));
  expectInvalid(thrown(() => Recording.open(path)), k, /damaged or was edited/);
  expectInvalid(thrown(() => new Replayer(path)), k, /damaged or was edited/);
});

test('a chunk that inflates past maxChunkBytes: refused, naming the chunk, without inflating it all', async () => {
  const texts = chunkTexts(base.bytes);
  const k = Math.floor(texts.length / 2);
  // 8 MiB of one frame: ~8 KiB compressed. Bounded at 1 MiB: the error says where it stopped.
  const bomb = `["m",0,1,"${'a'.repeat(8 * 1024 ** 2)}"]\n`;
  const path = file('bomb.rec', encodeFile([...texts.slice(0, k), bomb, ...texts.slice(k)]));
  const recording = Recording.open(path, { maxChunkBytes: 1024 ** 2 });
  expectInvalid(thrown(() => recording.sessions()), k, /inflates to more than 1048576 bytes \(maxChunkBytes\)/);

  const { error, lines, replayer } = await replay(path, { maxChunkBytes: 1024 ** 2 });
  expectInvalid(error, k, /inflates to more than 1048576 bytes/);
  expect(replayer.progress.state).toBe('failed');
  // What came before the bad chunk was replayed as recorded (the last input's emission read
  // the clock from the bad chunk: the replay had failed, the clock was frozen).
  expect(lines.length).toBeGreaterThan(10);
  expect(lines.slice(0, -1)).toEqual(base.lines.slice(0, lines.length - 1));
  expect(() => new Recording(Buffer.alloc(0), 'x', { maxChunkBytes: 0 })).toThrow(/maxChunkBytes/);
});

test('an entry of an unknown kind: an error naming its position, not an early normal end', async () => {
  const texts = chunkTexts(base.bytes);
  const k = Math.floor(texts.length / 2);
  const lines = texts[k]!.split('\n');
  lines.splice(3, 0, '["x",1,2]');
  const path = file('unknown.rec', encodeFile([...texts.slice(0, k), lines.join('\n'), ...texts.slice(k + 1)]));
  expectInvalid(thrown(() => Recording.open(path).sessions()), k, /entry 3 of chunk|unknown kind "x"/);

  const { error, replayer } = await replay(path);
  expectInvalid(error, k, /an entry of unknown kind "x"/);
  expect(replayer.progress.state).toBe('failed');
});

test('done rejects when a replay stops on an error (a listener of the client threw)', async () => {
  const bug = new Error('a listener bug');
  const { error, result, replayer } = await replay(base.path, {}, (options) => {
    const Base = options.connection!.WebSocket as WsWebSocketConstructor;
    let frames = 0;
    // The client's message listener throws at the 20th frame.
    class Throwing implements WebSocketLike {
      private readonly socket: WebSocketLike;
      constructor(url: string, o: WebSocketClientOptions) {
        this.socket = new Base(url, o);
      }
      get readyState(): number {
        return this.socket.readyState;
      }
      send(data: string): void {
        this.socket.send(data);
      }
      close(code?: number, reason?: string): void {
        this.socket.close(code, reason);
      }
      terminate(): void {
        this.socket.terminate();
      }
      on(event: 'open' | 'message' | 'close' | 'error', listener: (...args: never[]) => void): this {
        const wrapped = (...args: never[]) => {
          if (event === 'message' && ++frames === 20) throw bug;
          listener(...args);
        };
        (this.socket.on as (e: string, l: (...args: never[]) => void) => unknown)(event, wrapped);
        return this;
      }
    }
    return { ...options, connection: { ...options.connection, WebSocket: Throwing } };
  });
  expect(result).toBeUndefined();
  expect(error).toBeInstanceOf(ExchangeReplicaError);
  expect(error).toMatchObject({ code: 'ERR_INTERNAL', cause: bug });
  expect(replayer.progress.state).toBe('failed');
  expect(replayer.progress.frames).toBe(20);
});

test('a torn tail stays tolerated and reported: a cut last chunk, a damaged last chunk, zeros after a machine crash', async () => {
  const chunks = Recording.open(base.path).chunks;
  const last = chunks[chunks.length - 1]!;
  const cut = file('cut.rec', base.bytes.subarray(0, last.offset + Math.floor(last.size / 2)));
  const damaged = Buffer.from(base.bytes);
  damaged.fill(0x41, last.offset + 30, last.offset + 38);
  const zeros = file('zeros.rec', Buffer.concat([base.bytes.subarray(0, last.offset), Buffer.alloc(3 * 4096)]));
  for (const [path, reason] of [
    [cut, /incomplete chunk/],
    [file('damaged-last.rec', damaged), /damaged chunk/],
    [zeros, /bytes that are not a chunk/],
  ] as const) {
    const recording = Recording.open(path);
    expect(recording.torn).toMatchObject({ offset: last.offset, reason: expect.stringMatching(reason) });
    const { result, lines } = await replay(path);
    expect(result?.torn?.offset).toBe(last.offset);
    expect(result?.end).toBeUndefined();
    expect(lines.slice(0, -1)).toEqual(base.lines.slice(0, lines.length - 1));
  }
});

test('a recorder appending to a file damaged in the middle refuses it and leaves it as it is (it cut everything after the damage)', () => {
  const chunks = Recording.open(base.path).chunks;
  const k = Math.floor(chunks.length / 2);
  const damaged = Buffer.from(base.bytes);
  damaged.fill(0x41, chunks[k]!.offset, chunks[k]!.offset + 8);
  const path = file('append-damaged.rec', damaged);
  expectInvalid(thrown(() => new FeedRecorder({ path })), k, /damaged or was edited/);
  expect(readFileSync(path).equals(damaged)).toBe(true);
});

test('a file of format version 1 (no checksums) is refused with a coded error that says so, and never cut', () => {
  const path = file('v1.rec', versionOneChunk('["h",{"format":"exchange-replica-recording","version":1}]\n'));
  const before = readFileSync(path);
  for (const f of [() => Recording.open(path), () => new FeedRecorder({ path })]) {
    const e = thrown(f);
    expect(e).toBeInstanceOf(RecordingFormatError);
    expect((e as RecordingFormatError).message).toMatch(/format version 1 \(its chunks carry no checksum\)/);
  }
  expect(readFileSync(path).equals(before)).toBe(true);
});
