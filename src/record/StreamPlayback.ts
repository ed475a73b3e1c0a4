/**
 * One subscriber of a stream replayed from a recording: a cursor over the stream's recorded
 * timeline, from a start time on. The timeline of a stream is its subscriptions (`subscribed`
 * at the server's ack, `disconnected` when the socket closed), the events of its frames
 * (updates, `resync_required`) and the answers to its snapshot request, each at its place in
 * the file (`order`) and recorded time (`at`).
 *
 * Started at a recorded time inside a subscription, the cursor starts at the request of the
 * stream's snapshot answered nearest before that time (or at the subscription's start when
 * none was): the subscriber is told `subscribed` at once, the replica asks for its snapshot,
 * and the recorded updates from there on catch it up (delivered as fast as possible: their
 * time is past). Snapshot queries are answered in the timeline: with the latest answer the
 * cursor passed and the subscriber was not given yet, else with the next one when the cursor
 * reaches it (a replica that resyncs gets the snapshot the recorded client got after it).
 * @internal
 */
import { AbortedError } from '../errors';
import type { LoadedSnapshot, SnapshotQuery, SourceSink } from '../replicas';
import type { ChunkStore } from './chunkStore';
import { nextFrameEvent, type DataItem, type FrameQuery } from './recordedFrames';
import { loadRecordedSnapshot } from './recordedSnapshot';
import type { Epoch, RecordedAnswer, RecordedStream, RecordingIndex } from './recordingIndex';
import type { RecordingClock } from './RecordingClock';

/** What a playback reads: the index, the chunks, the replay's clock. */
export interface PlaybackHost {
  readonly index: RecordingIndex;
  readonly store: ChunkStore;
  readonly clock: RecordingClock;
}

type HeadKind = 'synthetic' | 'subscribed' | 'data' | 'snapshot' | 'end' | 'none';

interface PendingQuery {
  readonly query: SnapshotQuery;
  readonly resolve: (s: LoadedSnapshot) => void;
  readonly reject: (e: unknown) => void;
  readonly onAbort: () => void;
}

export class StreamPlayback {
  /** Recorded time (ms) and place of the next event; Infinity when there is none. */
  headAt = Number.POSITIVE_INFINITY;
  headOrder = Number.POSITIVE_INFINITY;
  closed = false;
  private kind: HeadKind = 'none';
  private epoch: Epoch | undefined;
  private generation = 0;
  /** Data: the current chunk, where to look on in it, and the next event found (decoded when it is found, dropped once delivered). */
  private chunk = -1;
  private frames: FrameQuery | undefined;
  private line = 0;
  private item: DataItem | undefined;
  private dataFrom = 0;
  private dataDone = false;
  private snapIdx = 0;
  private passed: RecordedAnswer | undefined;
  private lastAnswered = -1;
  private pending: PendingQuery | undefined;

  constructor(
    private readonly host: PlaybackHost,
    readonly stream: RecordedStream,
    private readonly sink: SourceSink,
  ) {
    const now = host.clock.nowMs();
    const position = host.index.orderAt(now);
    const epochs = stream.epochs;
    let current: Epoch | undefined;
    for (const e of epochs) if (e.startOrder <= position && e.endOrder > position) current = e;
    if (current === undefined) {
      this.waitFor(this.nextEpoch(position));
      return;
    }
    this.epoch = current;
    const answers = host.index.answersTo(stream.snapshotUrl);
    let chosen = -1;
    for (let i = 0; i < answers.length && answers[i]!.order <= position; i++) if (answers[i]!.order > current.startOrder && isSuccess(answers[i]!)) chosen = i;
    this.snapIdx = chosen >= 0 ? chosen : answers.findIndex((a) => a.order > current.startOrder);
    if (this.snapIdx < 0) this.snapIdx = answers.length;
    this.startData(chosen >= 0 ? answers[chosen]!.requestOrder : current.startOrder + 1);
    // Told at once (before the catch-up: just ahead of its first entry): the subscription was live at the start time.
    this.setHead('synthetic', now, this.dataFrom - 0.5);
  }

  get key(): string {
    return this.stream.key;
  }

  /** True while a snapshot query waits for an answer in the timeline. */
  get querying(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Delivers the next event and moves on. `async` when the subscriber may start async work
   * from it (a subscription change, a resync, a snapshot answer): the replay lets it run
   * before the next event; `update` for an update; `event` for anything else.
   */
  deliver(): 'update' | 'event' | 'async' {
    const kind = this.kind;
    switch (kind) {
      case 'synthetic':
      case 'subscribed': {
        const epoch = this.epoch!;
        this.passed = undefined;
        if (kind === 'subscribed') this.startData(epoch.startOrder + 1);
        this.sink.next({ kind: 'subscribed', subscriptionId: epoch.subscriptionId, generation: ++this.generation });
        this.refresh();
        return 'async';
      }
      case 'data': {
        const event = this.item!.event;
        this.item = undefined;
        this.sink.next(event);
        this.refresh();
        return event.kind === 'update' ? 'update' : 'async';
      }
      case 'snapshot': {
        const answer = this.host.index.answersTo(this.stream.snapshotUrl)[this.snapIdx++]!;
        const pending = this.pending;
        if (pending !== undefined) this.answer(pending, answer);
        else this.passed = answer;
        this.refresh();
        return pending !== undefined ? 'async' : 'event';
      }
      case 'end': {
        const epoch = this.epoch!;
        this.sink.next({ kind: 'disconnected', reason: `the socket closed (recorded at ${epoch.endAt.toFixed(3)} ms)` });
        this.waitFor(this.nextEpoch(epoch.endOrder));
        return 'async';
      }
      default:
        return 'event';
    }
  }

  /** A snapshot query of the subscriber: answered now with the answer passed, else when the next one comes. */
  query(query: SnapshotQuery): Promise<LoadedSnapshot> {
    const passed = this.passed;
    if (passed !== undefined && passed.order > this.lastAnswered) {
      this.passed = undefined;
      return this.load(query, passed);
    }
    return new Promise<LoadedSnapshot>((resolve, reject) => {
      const onAbort = (): void => {
        if (this.pending?.query !== query) return;
        this.pending = undefined;
        reject(new AbortedError('the snapshot request was aborted', { stream: this.key }));
      };
      if (query.signal.aborted) return onAbort();
      this.pending?.onAbort();
      this.pending = { query, resolve, reject, onAbort };
      query.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): void {
    this.closed = true;
    this.pending?.onAbort();
    this.setHead('none', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  private answer(pending: PendingQuery, answer: RecordedAnswer): void {
    this.pending = undefined;
    // The replica stamps the snapshot with the clock when it builds it: the recorded client's read there.
    const stamp = this.host.index.clockReadAfter(answer.order);
    if (stamp !== undefined) this.host.clock.stampNextRead(stamp);
    pending.query.signal.removeEventListener('abort', pending.onAbort);
    this.load(pending.query, answer).then(pending.resolve, pending.reject);
  }

  private load(query: SnapshotQuery, answer: RecordedAnswer): Promise<LoadedSnapshot> {
    this.lastAnswered = answer.order;
    return loadRecordedSnapshot(query, answer, this.host.index, this.key);
  }

  /** The first subscription of the stream that starts after `order` (reads on as far as needed). */
  private nextEpoch(order: number): Epoch | undefined {
    const index = this.host.index;
    for (;;) {
      const e = this.stream.epochs.find((x) => x.startOrder > order);
      if (e !== undefined || index.complete) return e;
      index.ensureRead((index.chunkOf(index.endOrder()) ?? -1) + 1);
    }
  }

  private waitFor(epoch: Epoch | undefined): void {
    this.epoch = epoch;
    this.dataDone = true;
    if (epoch === undefined) return this.setHead('none', Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    const answers = this.host.index.answersTo(this.stream.snapshotUrl);
    this.snapIdx = answers.findIndex((a) => a.order > epoch.startOrder);
    if (this.snapIdx < 0) this.snapIdx = answers.length;
    this.setHead('subscribed', epoch.startAt, epoch.startOrder);
  }

  /** Data from `order` on, in the current subscription. */
  private startData(order: number): void {
    this.dataFrom = order;
    this.dataDone = false;
    this.chunk = (this.host.index.chunkOf(order) ?? 0) - 1;
    this.frames = undefined;
    this.item = undefined;
  }

  /** Works out the next event: the earliest of the next frame event, snapshot answer and end of the subscription. */
  private refresh(): void {
    if (this.closed) return;
    const epoch = this.epoch!;
    const item = this.nextItem(epoch);
    const answers = this.host.index.answersTo(this.stream.snapshotUrl);
    while (this.snapIdx < answers.length && !isSuccess(answers[this.snapIdx]!)) this.snapIdx++;
    const snap = answers[this.snapIdx];
    const endOrder = epoch.endOrder;
    let kind: HeadKind = 'none';
    let at = Number.POSITIVE_INFINITY;
    let order = Number.POSITIVE_INFINITY;
    if (item !== undefined) [kind, at, order] = ['data', item.at, item.order];
    if (snap !== undefined && snap.order < order && snap.order < endOrder) [kind, at, order] = ['snapshot', snap.at, snap.order];
    if (endOrder < order) {
      if (epoch.endKind === 'disconnected') [kind, at, order] = ['end', epoch.endAt, endOrder];
      else return this.waitFor(this.nextEpoch(endOrder));
    }
    this.setHead(kind, at, order);
  }

  /** The next frame event of the subscription, reading on chunk by chunk; undefined when there is none. */
  private nextItem(epoch: Epoch): DataItem | undefined {
    while (!this.dataDone && this.item === undefined) {
      const frames = this.frames;
      if (frames !== undefined) {
        const item = nextFrameEvent(frames, this.line);
        if (item !== undefined) {
          this.item = item;
          this.line = item.order - frames.baseOrder + 1;
          break;
        }
        this.frames = undefined;
      }
      const next = this.chunk + 1;
      const index = this.host.index;
      if (index.baseOrder(next) > epoch.endOrder || !index.ensureRead(next)) {
        this.dataDone = true;
        break;
      }
      this.chunk = next;
      this.frames = this.framesOf(next, epoch);
      this.line = this.frames === undefined ? 0 : Math.max(0, this.dataFrom - this.frames.baseOrder);
    }
    const item = this.dataDone ? undefined : this.item;
    return item !== undefined && item.order < epoch.endOrder ? item : undefined;
  }

  /** What to look for in chunk `chunk` (its lines held here: the chunk cache may drop them meanwhile). */
  private framesOf(chunk: number, epoch: Epoch): FrameQuery | undefined {
    const cached = this.host.store.get(chunk);
    if (cached === undefined) return undefined;
    const clock = this.host.clock;
    return {
      lines: cached.lines,
      baseOrder: this.host.index.baseOrder(chunk),
      firstLine: this.host.index.firstLineIn(chunk),
      socket: epoch.socket,
      subscriptionId: epoch.subscriptionId,
      channel: this.stream.channel,
      wallNs: (at) => clock.wallNs(at),
      nextChunkFirstLine: () => this.host.store.get(chunk + 1)?.lines[0],
    };
  }

  private setHead(kind: HeadKind, at: number, order: number): void {
    this.kind = kind;
    this.headAt = at;
    this.headOrder = order;
  }
}

function isSuccess(a: RecordedAnswer): boolean {
  return a.status >= 200 && a.status < 300;
}
