/**
 * A recording as a replica source: `new ExchangeClient({ ...source.clientOptions() })` (or
 * `{ restUrl, source, clock: source.clock }`) makes every replica of the client (and so
 * `whenLive`, `iterate`, the views) read the recorded streams instead of the exchange, in
 * recorded time. Any subset of the recorded streams, subscribed in any order, at any time;
 * a stream that was not recorded fails its replica with `NotRecordedError`
 * (`ERR_NOT_RECORDED`). Statuses, resyncs and gaps come out as they did live: a recorded gap
 * is delivered as the same jump, a recorded `resync_required` as itself, a dropped socket as
 * `disconnected`, and each snapshot query is answered with the snapshot the recorded client
 * got at that point.
 *
 * Time is the recording's: the source drives its clock (`source.clock`, a `Clock`) through
 * the recorded times, so a bot's timers, the replicas' `timestampNs` / `receivedAtNs` and
 * latency figures are the recorded ones. At `speed: Infinity` the events are delivered as
 * fast as possible in recorded order, the clock jumping to each event's time (timers due
 * before it fire first); at a finite speed, at that many times the recorded pace.
 *
 * Not the exact rerun: that is `Replayer` (every input of one client, checked in order; the
 * debugging tool). This reads the same files with the same reader, for backtests and views.
 */
import type { ExchangeClientOptions } from '../client/clientOptions';
import { systemClock, type Clock } from '../clock';
import { AbortedError, InvalidParameterError } from '../errors';
import type { ChannelName, Scope } from '../protocol';
import type { LoadedSnapshot, ReplicaSource, SnapshotQuery, SourceSink } from '../replicas';
import { checkSubscription } from '../router/checkSubscription';
import { streamKey } from '../protocol';
import type { TornTail } from './chunks';
import { ChunkStore } from './chunkStore';
import type { SessionEnd, SessionHeader } from './entries';
import { NotRecordedError } from './NotRecordedError';
import { Recording } from './Recording';
import { RecordingClock } from './RecordingClock';
import { loadRecordedSnapshot } from './recordedSnapshot';
import { RecordingIndex } from './recordingIndex';
import { ReplayDriver } from './ReplayDriver';
import type { RecordingSourceOptions, RecordingSourceResult } from './recordingSourceOptions';
import { replayOffsetMs } from './replayTime';
import { StreamPlayback } from './StreamPlayback';

export type { RecordingSourceOptions, RecordingSourceResult } from './recordingSourceOptions';

/** A stream the recording holds. */
export interface RecordedStreamInfo {
  readonly channel: ChannelName;
  readonly scope: Scope;
  /** `streamKey(channel, scope)`. */
  readonly key: string;
}

/**
 * @example
 * const source = RecordingSource.open('session.rec', { speed: Infinity, from: 90_000 });
 * const client = new ExchangeClient(source.clientOptions());
 * client.orderBook({ market_type: 'perp', market_id: 0 }).subscribe(({ status, state }) => ...);
 * const { updates } = await source.ended;
 * await client.close();
 */
export class RecordingSource implements ReplicaSource {
  /** The session's header: URLs, the recorded client's options, `meta`. */
  readonly header: SessionHeader;
  /** The recorded time: pass it as the client's `clock` (`clientOptions()` does). */
  readonly clock: Clock;
  /**
   * Resolves when the replay reached the end of every stream subscribed (the clock then
   * stays at the session's end), or on `close()`. Never rejects: a chunk that cannot be read
   * ends it, with the error in `error`.
   */
  readonly ended: Promise<RecordingSourceResult>;
  /** The recording read. */
  readonly recording: Recording;
  private readonly index: RecordingIndex;
  private readonly store: ChunkStore;
  private readonly recordingClock: RecordingClock;
  private readonly driver: ReplayDriver;
  private readonly startMs: number;

  /**
   * @param recording a recording, or the path of one
   * @throws RecordingFormatError when the file is not a recording, is damaged anywhere but
   * at its end, or has no such session; InvalidParameterError for a bad option.
   */
  constructor(recording: Recording | string, options: RecordingSourceOptions = {}) {
    const speed = options.speed ?? Number.POSITIVE_INFINITY;
    if (typeof speed !== 'number' || !(speed > 0)) throw new InvalidParameterError(`invalid option 'speed': expected a number > 0 (Infinity: as fast as possible), got ${String(speed)}`, { param: 'speed' });
    const capacity = options.cacheChunks ?? 64;
    if (!Number.isSafeInteger(capacity) || capacity < 2) throw new InvalidParameterError(`invalid option 'cacheChunks': expected an integer >= 2, got ${String(capacity)}`, { param: 'cacheChunks' });
    this.recording = typeof recording === 'string' ? Recording.open(recording, options.maxChunkBytes === undefined ? {} : { maxChunkBytes: options.maxChunkBytes }) : recording;
    this.store = new ChunkStore(this.recording, capacity);
    this.index = new RecordingIndex(this.store, options.session ?? 0);
    this.header = this.index.header;
    const startedAtNs = BigInt(this.header.startedAtNs);
    this.startMs = replayOffsetMs(options.from ?? 0, startedAtNs);
    this.recordingClock = new RecordingClock(startedAtNs, this.startMs, () => this.driver.wake());
    this.clock = this.recordingClock;
    this.driver = new ReplayDriver({ index: this.index, clock: this.recordingClock, speed, torn: this.recording.torn, realClock: options.realClock ?? systemClock });
    this.ended = this.driver.ended;
  }

  /** Opens the recording at `path`. @throws as the constructor does. */
  static open(path: string, options: RecordingSourceOptions = {}): RecordingSource {
    return new RecordingSource(path, options);
  }

  /** Where the replay is: recorded time (ms since the session began), updates and events delivered. */
  get progress(): { readonly recordedMs: number; readonly updates: number; readonly events: number } {
    return { recordedMs: this.recordingClock.nowMs(), updates: this.driver.updates, events: this.driver.events };
  }

  /** Recorded time the replay started at, ms since the session began. */
  get fromMs(): number {
    return this.startMs;
  }

  /** The streams the recording holds (reads the whole session once). @throws RecordingFormatError for a chunk that cannot be read. */
  recordedStreams(): readonly RecordedStreamInfo[] {
    return this.index.allStreams().map((s) => ({ channel: s.channel, scope: s.scope, key: s.key }));
  }

  /** Frames (feed messages) recorded from the chunk of the start time to the end of what was read. */
  framesRead(): number {
    return this.index.framesFrom(this.index.chunkOf(this.index.orderAt(this.startMs)) ?? 0);
  }

  /** The session's end entry, once the replay read it. */
  get end(): SessionEnd | undefined {
    return this.index.end;
  }

  /** The file's unreadable tail, if any. */
  get torn(): TornTail | undefined {
    return this.recording.torn;
  }

  /**
   * Options of an `ExchangeClient` that reads this recording: the recorded REST URL, this
   * source and its clock, and `overrides` on top.
   */
  clientOptions(overrides: Omit<Partial<ExchangeClientOptions>, 'source' | 'clock'> = {}): ExchangeClientOptions {
    return { restUrl: this.header.restUrl, ...overrides, source: this, clock: this.clock };
  }

  subscribe(channel: ChannelName, scope: Scope, sink: SourceSink): () => void {
    const checked = checkSubscription(channel, scope as Record<string, unknown>);
    if (!checked.ok) {
      sink.error(checked.error);
      return noop;
    }
    let playback: StreamPlayback;
    try {
      const key = streamKey(checked.channel, checked.scope);
      const stream = this.index.stream(key);
      if (stream === undefined) {
        sink.error(new NotRecordedError(`${key} was not recorded in ${this.recording.name} (session ${this.header.startedAt}): the recording holds ${this.index.allStreams().map((s) => s.key).join(', ') || 'no stream'}`, { stream: key, channel }));
        return noop;
      }
      playback = new StreamPlayback({ index: this.index, store: this.store, clock: this.recordingClock }, stream, sink);
    } catch (error) {
      sink.error(error);
      return noop;
    }
    this.driver.add(playback);
    return () => this.driver.remove(playback);
  }

  snapshot(query: SnapshotQuery): Promise<LoadedSnapshot> {
    if (query.signal.aborted) return Promise.reject(new AbortedError('the snapshot request was aborted', { channel: query.channel }));
    const checked = checkSubscription(query.channel, query.scope as Record<string, unknown>);
    if (!checked.ok) return Promise.reject(checked.error);
    const key = streamKey(checked.channel, checked.scope);
    const playback = this.driver.playbackFor(key);
    if (playback !== undefined) return playback.query(query);
    // Not subscribed here: the snapshot answered nearest before now.
    const stream = this.index.stream(key);
    const now = this.recordingClock.nowMs();
    const answer = stream === undefined ? undefined : [...this.index.answersTo(stream.snapshotUrl)].reverse().find((a) => a.at <= now && a.status >= 200 && a.status < 300);
    if (answer === undefined) return Promise.reject(new NotRecordedError(`${key}: the recording holds no snapshot of it before ${now.toFixed(3)} ms`, { stream: key, channel: query.channel }));
    return loadRecordedSnapshot(query, answer, this.index, key);
  }

  /** Stops the replay: no event or timer anymore; `ended` resolves. Idempotent. */
  close(): void {
    this.driver.close();
  }
}

function noop(): void {}
