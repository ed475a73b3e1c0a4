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
 * on the replay is detached (clock frozen, no input delivered). So is a replay that stops on
 * an error: a chunk that turns out invalid (`RecordingFormatError`), or a listener of the
 * client that throws (`ERR_INTERNAL`, with it as `cause`): `done` rejects with it.
 */
import type { ExchangeClientOptions } from '../client/clientOptions';
import { systemClock, type Clock, type Timer } from '../clock';
import type { WebSocketConstructor } from '../connection/connectionOptions';
import { ExchangeReplicaError, InvalidParameterError } from '../errors';
import { asExchangeReplicaError } from '../errors/asExchangeReplicaError';
import { messageOf } from '../errors/messageOf';
import type { FetchLike } from '../rest';
import { describeEntry, isInput, type Entry, type InputEntry, type SessionHeader } from './entries';
import { ReplayDivergenceError } from './errors';
import { reviveOptions } from './json';
import { Recording, type SessionCursor } from './Recording';
import type { ReplayLog } from './replayLog';
import type { ReplayOptions, ReplayResult, ReplayState } from './replayOptions';
import { ReplayRequests } from './ReplayRequests';
import { ReplaySockets } from './ReplaySockets';

export type { ReplayOptions, ReplayResult, ReplayState } from './replayOptions';

export class Replayer {
  /** The session's header: URLs, the recorded client's options, `meta`. */
  readonly header: SessionHeader;
  readonly clock: Clock;
  readonly random: () => number;
  readonly WebSocket: WebSocketConstructor;
  readonly fetch: FetchLike;
  /**
   * Resolves when every input was delivered (or on `stop()`); rejects with
   * `ReplayDivergenceError` on a divergence, `RecordingFormatError` when a chunk turns out
   * invalid, `ERR_INTERNAL` when a listener of the client threw.
   */
  readonly done: Promise<ReplayResult>;

  private readonly cursor: SessionCursor;
  private readonly speed: number;
  /** Real time: what pacing and the stall bound wait for. */
  private readonly realClock: Clock;
  private readonly stallTimeoutMs: number;
  private state: ReplayState = 'ready';
  private resolveDone!: (r: ReplayResult) => void;
  private rejectDone!: (e: Error) => void;
  private stepScheduled = false;
  private waiting = false;
  private stallTimer: Timer | undefined;
  private paceTimer: Timer | undefined;
  private lastNs: bigint;
  private lastMs = 0;
  private inputs = 0;
  private frames = 0;
  private recordedMs = 0;
  private startedMs: number | undefined;
  private paceOrigin: { real: number; recorded: number } | undefined;
  private timerCount = 0;
  private readonly timers = new Map<number, () => void>();
  private readonly sockets: ReplaySockets;
  private readonly requests: ReplayRequests;

  /**
   * @param recording a recording, or the path of one
   * @throws RecordingFormatError when the file is not a recording, is damaged anywhere but
   * at its end, or has no such session; InvalidParameterError for a bad option.
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
    this.realClock = options.realClock ?? systemClock;
    this.stallTimeoutMs = stall;
    this.recording = typeof recording === 'string' ? Recording.open(recording, options.maxChunkBytes === undefined ? {} : { maxChunkBytes: options.maxChunkBytes }) : recording;
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
    const log: ReplayLog = {
      attached: () => this.attached,
      take: <T extends Entry>(tag: T[0], actual: () => string) => this.take<T>(tag, actual),
      divergeAt: (expected, actual) => this.divergeAt(expected, actual),
    };
    this.sockets = new ReplaySockets(log);
    this.requests = new ReplayRequests(log);
    this.WebSocket = this.sockets.WebSocket;
    this.fetch = this.requests.fetch;
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
      this.startedMs = this.realClock.nowMs();
      this.schedule();
    }
    return this.done;
  }

  /** Stops delivering inputs (`done` resolves with what was delivered); the client is detached from the log. */
  stop(): void {
    if (!this.attached) return;
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
    const e = this.head();
    if (this.state !== 'running') return;
    if (e === undefined) return this.finish('ended');
    if (!isInput(e)) {
      // The client has to act first (your code subscribes, or reacts to an emission).
      const ahead = this.read(() => this.cursor.hasInputAhead(), false);
      if (this.state !== 'running') return;
      if (!ahead) return this.finish('ended');
      this.wait();
      return;
    }
    this.endWait();
    if (this.speed !== Number.POSITIVE_INFINITY) {
      const at = e[1];
      const now = this.realClock.nowMs();
      this.paceOrigin ??= { real: now, recorded: at };
      const delay = this.paceOrigin.real + (at - this.paceOrigin.recorded) / this.speed - now;
      if (delay >= 1) {
        this.stepScheduled = true;
        this.paceTimer = this.realClock.setTimer(() => {
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
      this.fail(asExchangeReplicaError(error, `replay of ${this.recording.name} stopped at input ${this.inputs}: a listener of the client threw: ${messageOf(error)}`));
      return;
    }
    this.schedule();
  };

  private deliver(e: InputEntry): void {
    if (e[0] === 't') {
      const callback = this.timers.get(e[2]);
      if (callback === undefined) return this.diverge(`timer #${e[2]} was cancelled (or never set) by the client`);
      this.timers.delete(e[2]);
      return callback();
    }
    const missing = e[0] === 'a' || e[0] === 'f' ? this.requests.deliver(e) : this.sockets.deliver(e);
    if (missing !== undefined) this.divergeAt(e, missing);
  }

  private wait(): void {
    if (this.waiting) return;
    this.waiting = true;
    this.stallTimer = this.realClock.setTimer(() => {
      this.stallTimer = undefined;
      if (this.state === 'running' && this.waiting) {
        this.diverge(`nothing for ${this.stallTimeoutMs} ms (the code driving the client did not make the calls it made during the recording, or not in reaction to the same emissions)`);
      }
    }, this.stallTimeoutMs);
  }

  private endWait(): void {
    this.waiting = false;
    this.stallTimer?.cancel();
    this.stallTimer = undefined;
  }

  /** The client consumed an output entry: when the replay was waiting for it, go on. */
  private progressed(): void {
    if (this.waiting) this.schedule();
  }

  /** The cursor's head entry; a chunk that turns out invalid there fails the replay (undefined). */
  private head(): Entry | undefined {
    return this.read(() => this.cursor.head(), undefined);
  }

  /** `f()` (a read of the log); when it throws (an invalid chunk), the replay fails and `fallback` is returned. */
  private read<T>(f: () => T, fallback: T): T {
    try {
      return f();
    } catch (error) {
      this.fail(asExchangeReplicaError(error));
      return fallback;
    }
  }

  /** The replay stops on `error`: `done` rejects with it, the client is detached. */
  private fail(error: ExchangeReplicaError): void {
    if (this.attached) this.finish('failed', error);
  }

  private finish(state: 'ended' | 'stopped' | 'diverged' | 'failed', error?: ExchangeReplicaError): void {
    this.state = state;
    this.endWait();
    this.paceTimer?.cancel();
    this.paceTimer = undefined;
    if (error) return this.rejectDone(error);
    this.resolveDone({
      inputs: this.inputs,
      frames: this.frames,
      entries: this.cursor.position,
      recordedMs: this.recordedMs,
      realMs: this.startedMs === undefined ? 0 : this.realClock.nowMs() - this.startedMs,
      end: this.cursor.end,
      torn: this.recording.torn,
    });
  }

  private diverge(actual: string): void {
    this.divergeAt(this.head(), actual);
  }

  private divergeAt(expected: Entry | undefined, actual: string): void {
    if (!this.attached) return;
    const head = this.head();
    if (!this.attached) return;
    const position = this.cursor.position - (expected !== undefined && expected !== head ? 1 : 0);
    const what = describeEntry(expected);
    const at = this.recordedMs > 0 ? `, ${(this.recordedMs / 1000).toFixed(3)} s into the recording` : '';
    const error = new ReplayDivergenceError(`replay of ${this.recording.name} diverged at entry ${position} (after input ${this.inputs}${at}): the recording has ${what}, the client did ${actual}`, position, what, actual);
    this.finish('diverged', error);
  }

  /** True while outputs are checked against the log (not after its end, a divergence, a failure or a stop). */
  private get attached(): boolean {
    return this.state === 'ready' || this.state === 'running';
  }

  /** The head entry when it has tag `tag`, consumed; else a divergence (and undefined). */
  private take<T extends Entry>(tag: T[0], actual: () => string): T | undefined {
    const e = this.head();
    if (!this.attached) return undefined;
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
}

/** Equal numbers, NaN and infinities included (JSON stores them as null). */
function sameNumber(recorded: number | null, actual: number): boolean {
  return recorded === actual || (recorded === null && !Number.isFinite(actual));
}
