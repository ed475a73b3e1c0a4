/**
 * The replayer: a clock, a random source, a socket class and a fetch backed by one session
 * of a recording, for an `ExchangeClient` built with {@link Replayer.clientOptions}. No
 * network: the client meets the recorded world.
 *
 * - Everything the client reads (clock, random) returns the logged values, in order.
 * - Everything the client does (timer set, socket created, frame sent, socket closed, request
 *   issued) is checked against the log at its position: a mismatch is a divergence.
 * - Every input (socket opened, frame, close, error; HTTP answer or failure; timer fired) is
 *   delivered at its logged position, each in a macrotask of its own (`setImmediate`, the
 *   client's microtasks drained in between), exactly as the recorder delivered it.
 * - When the log's next entry is something the client must do (at the start: subscribe,
 *   which creates the socket; or what your code does in reaction to an emission), the
 *   replayer waits for the client, up to `stallTimeoutMs` of real time, then reports a
 *   divergence.
 *
 * The guarantee: a client built with the same options, driven by code that makes the same
 * calls in reaction to the same emissions (or before the first input), goes through exactly
 * the recorded states, emissions, statuses and resyncs. A divergence is reported as a
 * `ReplayDivergenceError` (`done` rejects) naming the entry where the two parted; from there
 * on the replay is detached (clock frozen, no input delivered).
 */
import { performance } from 'node:perf_hooks';
import type { ExchangeClientOptions } from '../client/clientOptions';
import type { Clock, Timer } from '../clock';
import type { WebSocketClientOptions, WebSocketConstructor, WebSocketLike } from '../connection/connectionOptions';
import { InvalidParameterError } from '../errors';
import type { FetchLike } from '../rest';
import type { TornTail } from './chunks';
import { describeEntry, isInput, type Entry, type InputEntry, type SessionEnd, type SessionHeader } from './entries';
import { ReplayDivergenceError } from './errors';
import { abortError, answerResponse, fetchFailure, SocketListeners, type SocketEvent } from './ioShapes';
import { reviveOptions } from './json';
import { Recording, type SessionCursor } from './Recording';

/** Options of {@link Replayer}. */
export interface ReplayOptions {
  /**
   * Recorded time per real time: 1 replays at the recorded pace, 10 ten times faster, 0.5
   * half as fast; `Infinity` as fast as possible.
   * @default Infinity
   */
  readonly speed?: number;
  /** Real time the replayer waits for the client to do what the log expects next before reporting a divergence. @default 10000 */
  readonly stallTimeoutMs?: number;
  /** The session of the file to replay, 0 for the first. @default 0 */
  readonly session?: number;
}

/** How a replay went. */
export interface ReplayResult {
  /** Inputs delivered. */
  readonly inputs: number;
  /** Feed frames delivered. */
  readonly frames: number;
  /** Entries of the session gone through. */
  readonly entries: number;
  /** Recorded time of the last input delivered, ms since the session began. */
  readonly recordedMs: number;
  /** Real time the replay took from `start()`, ms. */
  readonly realMs: number;
  /** How the recording session ended; undefined when it has no end entry (the process died, or the file is torn). */
  readonly end: SessionEnd | undefined;
  /** The file's unreadable tail, if any (its entries were not replayed). */
  readonly torn: TornTail | undefined;
}

/** Where a replay is: not started, delivering inputs, or over (every input delivered, a divergence, `stop()`). */
export type ReplayState = 'ready' | 'running' | 'ended' | 'diverged' | 'stopped';

interface PendingRequest {
  readonly resolve: (answer: ReturnType<typeof answerResponse>) => void;
  readonly reject: (error: Error) => void;
  readonly settle: () => boolean;
}

interface ReplaySocketHandle {
  readyState: number;
  readonly listeners: SocketListeners;
}

export class Replayer {
  /** The session's header: URLs, the recorded client's options, `meta`. */
  readonly header: SessionHeader;
  readonly clock: Clock;
  readonly random: () => number;
  readonly WebSocket: WebSocketConstructor;
  readonly fetch: FetchLike;
  /** Resolves when every input was delivered; rejects with `ReplayDivergenceError` on a divergence. */
  readonly done: Promise<ReplayResult>;

  private readonly cursor: SessionCursor;
  private readonly speed: number;
  private readonly stallTimeoutMs: number;
  private state: ReplayState = 'ready';
  private resolveDone!: (r: ReplayResult) => void;
  private rejectDone!: (e: Error) => void;
  private stepScheduled = false;
  private waiting = false;
  private stallTimer: NodeJS.Timeout | undefined;
  private paceTimer: NodeJS.Timeout | undefined;
  private lastNs: bigint;
  private lastMs = 0;
  private inputs = 0;
  private frames = 0;
  private recordedMs = 0;
  private startedMs = 0;
  private paceOrigin: { real: number; recorded: number } | undefined;
  private timerCount = 0;
  private socketCount = 0;
  private requestCount = 0;
  private readonly timers = new Map<number, () => void>();
  private readonly sockets = new Map<number, ReplaySocketHandle>();
  private readonly requests = new Map<number, PendingRequest>();

  /**
   * @param recording a recording, or the path of one
   * @throws RecordingFormatError when the file is not a recording or has no such session;
   * InvalidParameterError for a bad option.
   */
  constructor(
    recording: Recording | string,
    options: ReplayOptions = {},
  ) {
    const speed = options.speed ?? Number.POSITIVE_INFINITY;
    if (typeof speed !== 'number' || !(speed > 0)) throw new InvalidParameterError(`invalid option 'speed': expected a number > 0 (Infinity: as fast as possible), got ${String(speed)}`, { param: 'speed' });
    const stall = options.stallTimeoutMs ?? 10_000;
    if (typeof stall !== 'number' || !(stall > 0)) throw new InvalidParameterError(`invalid option 'stallTimeoutMs': expected a number > 0, got ${String(stall)}`, { param: 'stallTimeoutMs' });
    this.speed = speed;
    this.stallTimeoutMs = stall;
    this.recording = typeof recording === 'string' ? Recording.open(recording) : recording;
    this.cursor = this.recording.session(options.session ?? 0);
    this.header = this.cursor.header;
    this.lastNs = BigInt(this.header.startedAtNs);
    this.done = new Promise<ReplayResult>((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    // A divergence nobody awaits must not become an unhandled rejection.
    this.done.catch(() => undefined);
    this.clock = { nowNs: () => this.nowNs(), nowMs: () => this.nowMs(), setTimer: (cb, ms) => this.setTimer(cb, ms) };
    this.random = () => this.draw();
    this.fetch = (url, init) => this.request(url, init.signal);
    this.WebSocket = this.socketClass();
  }

  /** The recording read. */
  readonly recording: Recording;

  /** Where the replay is: entries gone through, inputs and frames delivered, recorded time of the last input (ms). */
  get progress(): { readonly position: number; readonly inputs: number; readonly frames: number; readonly recordedMs: number; readonly state: ReplayState } {
    return { position: this.cursor.position, inputs: this.inputs, frames: this.frames, recordedMs: this.recordedMs, state: this.state };
  }

  /**
   * Options for an `ExchangeClient` that replays this session: the recorded URLs and options,
   * `overrides` on top (e.g. `reducers`, `onDrift`), and this replayer's clock, random,
   * socket class and fetch in every component.
   */
  clientOptions(overrides: Omit<Partial<ExchangeClientOptions>, 'restUrl' | 'wsUrl'> = {}): ExchangeClientOptions {
    const recorded = (reviveOptions(this.header.options) ?? {}) as Partial<ExchangeClientOptions>;
    const { clock, random } = this;
    return {
      ...recorded,
      ...overrides,
      restUrl: this.header.restUrl,
      wsUrl: this.header.wsUrl,
      clock,
      random,
      rest: { ...recorded.rest, ...overrides.rest, clock, random, fetch: this.fetch },
      connection: { ...recorded.connection, ...overrides.connection, clock, random, WebSocket: this.WebSocket },
      router: { ...recorded.router, ...overrides.router, clock },
      resync: { ...recorded.resync, ...overrides.resync },
      replica: { ...recorded.replica, ...overrides.replica, clock, random },
    };
  }

  /**
   * Starts delivering the inputs (the client may have been subscribed before or be
   * subscribed after: the replayer waits for what the log expects). Idempotent.
   * @returns `done`
   */
  start(): Promise<ReplayResult> {
    if (this.state === 'ready') {
      this.state = 'running';
      this.startedMs = performance.now();
      this.schedule();
    }
    return this.done;
  }

  /** Stops delivering inputs (`done` resolves with what was delivered); the client is detached from the log. */
  stop(): void {
    if (this.state === 'ended' || this.state === 'diverged' || this.state === 'stopped') return;
    this.finish('stopped');
  }

  // ---- the scheduler ---------------------------------------------------------

  private schedule(): void {
    if (this.stepScheduled || this.state !== 'running') return;
    this.stepScheduled = true;
    setImmediate(this.step);
  }

  private readonly step = (): void => {
    this.stepScheduled = false;
    if (this.state !== 'running') return;
    const e = this.cursor.head();
    if (e === undefined) return this.finish('ended');
    if (!isInput(e)) {
      // The client has to act first (your code subscribes, or reacts to an emission).
      if (!this.cursor.hasInputAhead()) return this.finish('ended');
      this.wait();
      return;
    }
    this.endWait();
    if (this.speed !== Number.POSITIVE_INFINITY) {
      const at = e[1];
      const now = performance.now();
      this.paceOrigin ??= { real: now, recorded: at };
      const delay = this.paceOrigin.real + (at - this.paceOrigin.recorded) / this.speed - now;
      if (delay >= 1) {
        this.stepScheduled = true;
        this.paceTimer = setTimeout(() => {
          this.paceTimer = undefined;
          this.step();
        }, delay);
        return;
      }
    }
    this.cursor.advance();
    this.inputs++;
    if (e[0] === 'm') this.frames++;
    this.recordedMs = e[1];
    try {
      this.deliver(e);
    } catch (error) {
      // A listener of the client threw: it would have escaped `ws` the same way.
      this.finish('stopped');
      this.rejectDone(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.schedule();
  };

  private deliver(e: InputEntry): void {
    switch (e[0]) {
      case 't': {
        const callback = this.timers.get(e[2]);
        if (callback === undefined) return this.diverge(`timer #${e[2]} was cancelled (or never set) by the client`);
        this.timers.delete(e[2]);
        return callback();
      }
      case 'm': {
        const s = this.socketOf(e[2], e);
        if (s === undefined) return;
        return s.listeners.emit('message', [e[3], e.length === 5]);
      }
      case 'o': {
        const s = this.socketOf(e[2], e);
        if (s === undefined) return;
        s.readyState = 1;
        return s.listeners.emit('open', []);
      }
      case 'c': {
        const s = this.socketOf(e[2], e);
        if (s === undefined) return;
        s.readyState = 3;
        return s.listeners.emit('close', [e[3], Buffer.from(e[4], 'utf8')]);
      }
      case 'e': {
        const s = this.socketOf(e[2], e);
        if (s === undefined) return;
        const error = new Error(e[3]);
        if (e[4] !== null) Object.assign(error, { code: e[4] });
        return s.listeners.emit('error', [error]);
      }
      case 'a': {
        const r = this.requestOf(e[2], e);
        if (r === undefined) return;
        return r.resolve(answerResponse(e[3], e[4], e[5], e[6]));
      }
      case 'f': {
        const r = this.requestOf(e[2], e);
        if (r === undefined) return;
        return r.reject(fetchFailure(e[3], e[4], e[5]));
      }
    }
  }

  private socketOf(id: number, e: InputEntry): ReplaySocketHandle | undefined {
    const s = this.sockets.get(id);
    if (s === undefined) this.divergeAt(e, `the client has no socket #${id}`);
    return s;
  }

  private requestOf(id: number, e: InputEntry): PendingRequest | undefined {
    const r = this.requests.get(id);
    if (r === undefined || !r.settle()) {
      this.divergeAt(e, `request #${id} was aborted (or never issued) by the client`);
      return undefined;
    }
    this.requests.delete(id);
    return r;
  }

  private wait(): void {
    if (this.waiting) return;
    this.waiting = true;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      if (this.state === 'running' && this.waiting) {
        this.diverge(`nothing for ${this.stallTimeoutMs} ms (the code driving the client did not make the calls it made during the recording, or not in reaction to the same emissions)`);
      }
    }, this.stallTimeoutMs);
  }

  private endWait(): void {
    this.waiting = false;
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }

  /** The client consumed an output entry: when the replay was waiting for it, go on. */
  private progressed(): void {
    if (this.waiting) this.schedule();
  }

  private finish(state: 'ended' | 'stopped' | 'diverged', error?: ReplayDivergenceError): void {
    this.state = state;
    this.endWait();
    if (this.paceTimer) clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    if (error) return this.rejectDone(error);
    this.resolveDone({
      inputs: this.inputs,
      frames: this.frames,
      entries: this.cursor.position,
      recordedMs: this.recordedMs,
      realMs: this.startedMs === 0 ? 0 : performance.now() - this.startedMs,
      end: this.cursor.end,
      torn: this.recording.torn,
    });
  }

  private diverge(actual: string): void {
    this.divergeAt(this.cursor.head(), actual);
  }

  private divergeAt(expected: Entry | undefined, actual: string): void {
    if (this.state === 'diverged' || this.state === 'ended' || this.state === 'stopped') return;
    const position = this.cursor.position - (expected !== undefined && expected !== this.cursor.head() ? 1 : 0);
    const what = describeEntry(expected);
    const at = this.recordedMs > 0 ? `, ${(this.recordedMs / 1000).toFixed(3)} s into the recording` : '';
    const error = new ReplayDivergenceError(`replay of ${this.recording.name} diverged at entry ${position} (after input ${this.inputs}${at}): the recording has ${what}, the client did ${actual}`, position, what, actual);
    this.finish('diverged', error);
  }

  /** True while outputs are checked against the log (not after its end, a divergence or a stop). */
  private get attached(): boolean {
    return this.state === 'ready' || this.state === 'running';
  }

  /** The head entry when it has tag `tag`, consumed; else a divergence (and undefined). */
  private take<T extends Entry>(tag: T[0], actual: () => string): T | undefined {
    const e = this.cursor.head();
    if (e === undefined) {
      // Past the recording's end: nothing left to check against.
      this.finish('ended');
      return undefined;
    }
    if (e[0] !== tag) {
      this.diverge(actual());
      return undefined;
    }
    this.cursor.advance();
    this.progressed();
    return e as T;
  }

  // ---- what the client reads and does ---------------------------------------

  private nowNs(): bigint {
    if (!this.attached) return this.lastNs;
    const e = this.take<readonly ['n', string]>('n', () => 'a read of the wall clock (nowNs)');
    if (e !== undefined) this.lastNs = BigInt(e[1]);
    return this.lastNs;
  }

  private nowMs(): number {
    if (!this.attached) return this.lastMs;
    const e = this.take<readonly ['d', number]>('d', () => 'a read of the monotonic clock (nowMs)');
    if (e !== undefined) this.lastMs = e[1];
    return this.lastMs;
  }

  private draw(): number {
    if (!this.attached) return 0.5;
    const e = this.take<readonly ['r', number]>('r', () => 'a random draw');
    return e === undefined ? 0.5 : e[1];
  }

  private setTimer(callback: () => void, delayMs: number): Timer {
    const id = ++this.timerCount;
    if (!this.attached) return { cancel: () => undefined };
    const e = this.take<readonly ['T', number, number]>('T', () => `set timer #${id} for ${delayMs} ms`);
    if (e !== undefined && (e[1] !== id || !sameNumber(e[2], delayMs))) this.divergeAt(e, `set timer #${id} for ${delayMs} ms`);
    this.timers.set(id, callback);
    return { cancel: () => this.timers.delete(id) };
  }

  private request(url: string, signal: AbortSignal): Promise<ReturnType<typeof answerResponse>> {
    const id = ++this.requestCount;
    if (this.attached) {
      const e = this.take<readonly ['F', number, string]>('F', () => `request #${id} to ${url}`);
      if (e !== undefined && (e[1] !== id || e[2] !== url)) this.divergeAt(e, `request #${id} to ${url}`);
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      const onAbort = (): void => {
        if (settled) return;
        settled = true;
        this.requests.delete(id);
        reject(abortError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.requests.set(id, {
        resolve,
        reject,
        settle: () => {
          if (settled) return false;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          return true;
        },
      });
    });
  }

  private socketClass(): WebSocketConstructor {
    const replay = this;
    return class ReplaySocket implements WebSocketLike {
      private readonly handle: ReplaySocketHandle;
      private readonly id: number;

      constructor(url: string, _options: WebSocketClientOptions) {
        const id = (this.id = ++replay.socketCount);
        this.handle = { readyState: 0, listeners: new SocketListeners() };
        if (!replay.attached) return;
        const e = replay.take<readonly ['S', number, string] | readonly ['S', number, string, string]>('S', () => `create socket #${id} for ${url}`);
        if (e === undefined) return;
        if (e[1] !== id || e[2] !== url) {
          replay.divergeAt(e, `create socket #${id} for ${url}`);
          return;
        }
        if (e.length === 4) throw new Error(e[3]);
        replay.sockets.set(id, this.handle);
      }

      get readyState(): number {
        return this.handle.readyState;
      }

      on(event: SocketEvent, listener: (...args: never[]) => void): this {
        this.handle.listeners.add(event, listener);
        return this;
      }

      send(data: string): void {
        if (!replay.attached) return;
        const e = replay.take<readonly ['s', number, string]>('s', () => `send on socket #${this.id}: ${data.slice(0, 120)}`);
        if (e !== undefined && (e[1] !== this.id || e[2] !== data)) replay.divergeAt(e, `send on socket #${this.id}: ${data.slice(0, 120)}`);
      }

      close(code?: number, reason?: string): void {
        if (this.handle.readyState < 2) this.handle.readyState = 2;
        if (!replay.attached) return;
        const e = replay.take<readonly ['C', number, number | null, string | null]>('C', () => `close socket #${this.id} (code ${code})`);
        if (e !== undefined && (e[1] !== this.id || e[2] !== (code ?? null) || e[3] !== (reason ?? null))) replay.divergeAt(e, `close socket #${this.id} (code ${code}, ${reason})`);
      }

      terminate(): void {
        if (this.handle.readyState < 2) this.handle.readyState = 2;
        if (!replay.attached) return;
        const e = replay.take<readonly ['K', number]>('K', () => `terminate socket #${this.id}`);
        if (e !== undefined && e[1] !== this.id) replay.divergeAt(e, `terminate socket #${this.id}`);
      }
    };
  }
}

/** Equal numbers, NaN and infinities included (JSON stores them as null). */
function sameNumber(recorded: number | null, actual: number): boolean {
  return recorded === actual || (recorded === null && !Number.isFinite(actual));
}
