/**
 * The recorder: wraps the clock, the randomness, the socket class and the fetch of ONE
 * client (`new ExchangeClient({ ..., record: new FeedRecorder({ path }) })`) and logs, in
 * one sequence, every input the client receives (socket opened, frame, close, error; HTTP
 * answer or failure; timer fired), each with its local receive time, and every value the
 * client reads or draws (clock reads, random numbers), with what it does (timers set,
 * sockets created, frames sent, requests issued) for the replay to check.
 *
 * Every input goes through one FIFO and reaches the client in a macrotask of its own
 * (`setImmediate`), so the client's promise chains (microtasks) after one input always run
 * before the next: the replay delivers inputs the same way, which is what makes the client's
 * behaviour a function of the log alone. The cost: each input reaches the client one event
 * loop turn later than without a recorder.
 *
 * Bounded (`maxBytes`, `maxDurationMs`): past a bound the recording stops (its session is
 * ended in the file) and the client runs on, unrecorded. Crash-safe: chunks are written
 * whole with one `write` each, every `flushIntervalMs` or `flushBytes`, and on process exit.
 */
import { InvalidParameterError } from '../errors';
import type { Clock, Timer, TimerOptions } from '../clock';
import { systemClock } from '../clock';
import { defaultWebSocket } from '../connection/defaultWebSocket';
import type { WebSocketConstructor } from '../connection/connectionOptions';
import type { FetchLike } from '../rest';
import type { ClientIoInterceptor, ClientIoSession } from '../client/ClientIo';
import { RECORDING_FORMAT, RECORDING_VERSION, type Entry, type InputEntry, type RecordingStopReason, type SessionEnd, type SessionHeader } from './entries';
import { storableOptions, type JsonValue } from './json';
import { RecordingWriter } from './RecordingWriter';
import type { TornTail } from './chunks';
import { answerResponse, fetchFailure, abortError } from './ioShapes';
import { recordingSocketClass, type SocketLog } from './RecordingSocket';

/** Options of {@link FeedRecorder}. */
export interface FeedRecorderOptions {
  /** The file: created when missing, appended to (a new session) when it exists. */
  readonly path: string;
  /** Most bytes this recording adds to the file; past it the recording stops (reason `maxBytes`). @default 1073741824 (1 GiB) */
  readonly maxBytes?: number;
  /** The recording stops after this long (reason `maxDuration`). @default Infinity */
  readonly maxDurationMs?: number;
  /** Pending entries are written at least this often (the most a process that dies can lose). @default 1000 */
  readonly flushIntervalMs?: number;
  /** ... and as soon as this many bytes of entries are pending. @default 262144 (256 KiB) */
  readonly flushBytes?: number;
  /** zlib compression level, 0 (none) to 9. @default 6 */
  readonly compressionLevel?: number;
  /** fsync after each chunk: survives a machine crash too, at the cost of a disk flush per chunk. @default false */
  readonly fsync?: boolean;
  /** Anything JSON to store in the session's header (read back as `Replayer.header.meta`). @default null */
  readonly meta?: JsonValue;
  /** Told once when the recording stops (bound reached, client closed, process exit). */
  readonly onStop?: (reason: RecordingStopReason, stats: RecorderStats) => void;
  /**
   * The recorder's own time: the session's start, each input's receive time, the flush and
   * duration timers (the client's clock is another: its reads are what the recorder logs).
   * @default the system clock
   */
  readonly clock?: Clock;
}

/** What a recorder has done so far. */
export interface RecorderStats {
  /** Entries logged (the header excluded). */
  readonly entries: number;
  /** Inputs logged (frames, answers, timer firings, socket events). */
  readonly inputs: number;
  /** Feed frames logged. */
  readonly frames: number;
  /** Bytes written to the file by this recorder. */
  readonly bytes: number;
  readonly chunks: number;
  /** Why the recording stopped; undefined while it runs. */
  readonly stopped: RecordingStopReason | undefined;
}

interface Pending {
  readonly entry: InputEntry;
  readonly deliver: () => void;
  readonly valid: () => boolean;
}

export class FeedRecorder implements ClientIoInterceptor {
  /** The torn tail of an earlier session that was cut off when the file was opened. */
  readonly repaired: TornTail | undefined;
  private readonly writer: RecordingWriter;
  private readonly options: Required<Omit<FeedRecorderOptions, 'onStop' | 'meta' | 'clock'>> & Pick<FeedRecorderOptions, 'onStop' | 'meta'>;
  private readonly clock: Clock;
  private readonly queue: (Pending | undefined)[] = [];
  private queueHead = 0;
  private t0 = 0;
  private began = false;
  private recording = false;
  private stopReason: RecordingStopReason | undefined;
  private entryCount = 0;
  private inputCount = 0;
  private frameCount = 0;
  private timerCount = 0;
  private socketCount = 0;
  private requestCount = 0;
  private flushTimer: Timer | undefined;
  private durationTimer: Timer | undefined;
  private readonly clocks = new WeakMap<Clock, Clock>();
  private readonly randoms = new WeakMap<() => number, () => number>();
  private readonly onExit = (): void => this.stop('exit');
  /** What the recording sockets log through. */
  private readonly socketLog: SocketLog = {
    nextSocketId: () => ++this.socketCount,
    at: () => this.at(),
    enqueue: (entry, deliver, valid) => this.enqueue(entry, deliver, valid),
    logOutput: (entry) => this.logOutput(entry),
  };

  /**
   * Opens (or creates) the file at once.
   * @throws InvalidParameterError for an invalid option; RecordingFormatError when the file
   * exists and is not a recording; the file system's error when it cannot be opened.
   */
  constructor(options: FeedRecorderOptions) {
    if (!options || typeof options.path !== 'string' || options.path === '') throw new InvalidParameterError("missing option 'path': the file to record to", { param: 'path' });
    this.options = {
      path: options.path,
      maxBytes: positive('maxBytes', options.maxBytes ?? 1024 ** 3),
      maxDurationMs: positive('maxDurationMs', options.maxDurationMs ?? Number.POSITIVE_INFINITY),
      flushIntervalMs: positive('flushIntervalMs', options.flushIntervalMs ?? 1000),
      flushBytes: positive('flushBytes', options.flushBytes ?? 256 * 1024),
      compressionLevel: level(options.compressionLevel ?? 6),
      fsync: options.fsync ?? false,
      meta: options.meta ?? null,
      onStop: options.onStop,
    };
    this.clock = options.clock ?? systemClock;
    this.writer = new RecordingWriter(options.path, { maxBytes: this.options.maxBytes, flushBytes: this.options.flushBytes, compressionLevel: this.options.compressionLevel, fsync: this.options.fsync });
    this.repaired = this.writer.repaired;
  }

  /** The file recorded to. */
  get path(): string {
    return this.options.path;
  }

  get stats(): RecorderStats {
    return { entries: this.entryCount, inputs: this.inputCount, frames: this.frameCount, bytes: this.writer.written, chunks: this.writer.chunks, stopped: this.stopReason };
  }

  /** Writes the pending entries now (as one chunk). */
  flush(): void {
    if (this.recording) this.writer.flush();
    if (this.writer.full && this.recording) this.stop('maxBytes');
  }

  // ---- ClientIoInterceptor ---------------------------------------------------

  /** @throws Error when the recorder already records a client (one recorder, one client). */
  begin(session: ClientIoSession): void {
    if (this.began) throw new InvalidParameterError('a FeedRecorder records one client: create one per ExchangeClient', { param: 'record' });
    this.began = true;
    this.t0 = this.clock.nowMs();
    const wallNs = this.clock.nowNs();
    const header: SessionHeader = {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      startedAtNs: wallNs.toString(),
      startedAt: new Date(Number(wallNs / 1_000_000n)).toISOString(),
      restUrl: session.restUrl,
      wsUrl: session.wsUrl,
      options: storableOptions(session.options),
      meta: this.options.meta ?? null,
    };
    this.recording = true;
    this.writer.add(JSON.stringify(['h', header]));
    this.armFlush();
    if (Number.isFinite(this.options.maxDurationMs)) this.durationTimer = this.clock.setTimer(() => this.stop('maxDuration'), this.options.maxDurationMs, { unref: true });
    process.once('exit', this.onExit);
  }

  wrapClock(base: Clock): Clock {
    const known = this.clocks.get(base);
    if (known) return known;
    const wrapped: Clock = {
      nowNs: () => {
        const v = base.nowNs();
        if (this.recording) this.log(['n', v.toString()]);
        return v;
      },
      nowMs: () => {
        const v = base.nowMs();
        if (this.recording) this.log(['d', v]);
        return v;
      },
      setTimer: (callback: () => void, delayMs: number, options?: TimerOptions): Timer => {
        const id = ++this.timerCount;
        if (this.recording) this.log(['T', id, delayMs]);
        let live = true;
        const timer = base.setTimer(() => this.enqueue(['t', this.at(), id], callback, () => live), delayMs, options);
        return {
          cancel: () => {
            live = false;
            timer.cancel();
          },
        };
      },
    };
    this.clocks.set(base, wrapped);
    return wrapped;
  }

  wrapRandom(base: () => number): () => number {
    const known = this.randoms.get(base);
    if (known) return known;
    const wrapped = (): number => {
      const v = base();
      if (this.recording) this.log(['r', v]);
      return v;
    };
    this.randoms.set(base, wrapped);
    return wrapped;
  }

  wrapWebSocket(ctor: WebSocketConstructor | undefined): WebSocketConstructor {
    return recordingSocketClass(ctor ?? defaultWebSocket(), this.socketLog);
  }

  wrapFetch(fetch: FetchLike | undefined): FetchLike {
    const base: FetchLike = fetch ?? ((input, init) => globalThis.fetch(input, init));
    return (url, init) => {
      const id = ++this.requestCount;
      this.logOutput(['F', id, url]);
      return new Promise((resolve, reject) => {
        const signal = init.signal;
        let settled = false;
        const onAbort = (): void => {
          if (settled) return;
          settled = true;
          reject(abortError());
        };
        const settle = (): void => {
          settled = true;
          signal.removeEventListener('abort', onAbort);
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        const pending = () => !settled;
        let request: ReturnType<FetchLike>;
        try {
          request = base(url, init);
        } catch (e) {
          request = Promise.reject(e);
        }
        request
          .then(async (res) => ({ status: res.status, body: await res.text(), length: res.headers?.get('content-length') ?? null, encoding: res.headers?.get('content-encoding') ?? null }))
          .then(
            (a) =>
              this.enqueue(['a', this.at(), id, a.status, a.body, a.length, a.encoding], () => {
                settle();
                resolve(answerResponse(a.status, a.body, a.length, a.encoding));
              }, pending),
            (e: unknown) => {
              const error = e instanceof Error ? e : new Error(String(e));
              const cause = (error as { cause?: unknown }).cause;
              const causeMessage = cause instanceof Error ? cause.message : null;
              this.enqueue(['f', this.at(), id, error.name, error.message, causeMessage], () => {
                settle();
                reject(fetchFailure(error.name, error.message, causeMessage));
              }, pending);
            },
          );
      });
    };
  }

  /**
   * Ends the recording: writes what is pending and the session's end, closes the file. The
   * client (already closed, when called by `client.close()`) is not touched. Idempotent.
   */
  async close(): Promise<void> {
    this.stop('closed');
  }

  // ---- internals -------------------------------------------------------------

  /** Stops recording (the client runs on, unrecorded) and ends the session in the file. */
  private stop(reason: RecordingStopReason): void {
    if (this.stopReason !== undefined) return;
    this.stopReason = reason;
    const wasRecording = this.recording;
    this.recording = false;
    this.flushTimer?.cancel();
    this.durationTimer?.cancel();
    process.off('exit', this.onExit);
    if (wasRecording) {
      const end: SessionEnd = { reason, entries: this.entryCount, inputs: this.inputCount, durationMs: round3(this.clock.nowMs() - this.t0) };
      this.writer.writeFinal([JSON.stringify(['z', end])]);
    }
    this.writer.close();
    try {
      this.options.onStop?.(reason, this.stats);
    } catch {
      // A throwing hook must not break the client.
    }
  }

  /** Milliseconds since the session began, µs precision. */
  private at(): number {
    return round3(this.clock.nowMs() - this.t0);
  }

  /** Pending entries are written every `flushIntervalMs` while recording. */
  private armFlush(): void {
    this.flushTimer = this.clock.setTimer(
      () => {
        this.flush();
        if (this.recording) this.armFlush();
      },
      this.options.flushIntervalMs,
      { unref: true },
    );
  }

  private log(entry: Entry): void {
    this.entryCount++;
    if (!this.writer.add(JSON.stringify(entry))) this.stop('maxBytes');
  }

  private logOutput(entry: Entry): void {
    if (this.recording) this.log(entry);
  }

  /** Queues an input; it reaches the client in a macrotask of its own, in arrival order, if still `valid` then. */
  private enqueue(entry: InputEntry, deliver: () => void, valid: () => boolean): void {
    this.queue.push({ entry, deliver, valid });
    setImmediate(this.pump);
  }

  private readonly pump = (): void => {
    while (this.queueHead < this.queue.length) {
      const p = this.queue[this.queueHead]!;
      this.queue[this.queueHead++] = undefined;
      if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
        this.queue.splice(0, this.queueHead);
        this.queueHead = 0;
      }
      if (!p.valid()) continue;
      if (this.recording) {
        this.inputCount++;
        if (p.entry[0] === 'm') this.frameCount++;
        this.log(p.entry);
      }
      p.deliver();
      return;
    }
  };
}

function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function positive(name: string, v: number): number {
  if (typeof v !== 'number' || Number.isNaN(v) || v <= 0) throw new InvalidParameterError(`invalid option '${name}': expected a number > 0, got ${String(v)}`, { param: name });
  return v;
}

function level(v: number): number {
  if (!Number.isInteger(v) || v < 0 || v > 9) throw new InvalidParameterError(`invalid option 'compressionLevel': expected an integer from 0 to 9, got ${String(v)}`, { param: 'compressionLevel' });
  return v;
}
