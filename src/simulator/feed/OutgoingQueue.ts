/**
 * The bounded outgoing pipe of one connection. Frames go straight to the socket unless a
 * fault holds them back: a frame delay (the one of every connection plus the connection's
 * own, each with its seeded jitter; order kept), a stall of the whole connection, or a
 * stall of one stream (that stream's frames wait aside while the others pass). What waits
 * here plus what the socket has not yet written is the connection's queue; past
 * `maxQueueBytes` the socket is dropped at once. Update frames are rendered when written,
 * so their `timestamp_ns` is the send time. @internal
 */
import type { Clock, Timer } from '../../clock/Clock';
import type { StreamEvent } from '../StreamHub';
import type { FeedSubscription } from './FeedSubscription';
import type { FrameDelay, FrameDelaySpec } from './FrameDelay';
import { writeUpdateFrame } from '../../protocol';

/** Where frames end up: the WebSocket, seen through the few operations the queue needs. */
export interface FrameSink {
  send(text: string): void;
  /** Bytes accepted by the socket but not yet written to the network. */
  bufferedAmount(): number;
  /** Closes with a close frame (after everything already sent). */
  close(code: number, reason: string): void;
  /** Drops the socket at once: no close frame. */
  terminate(): void;
}

/** Settings shared by every connection of a feed server, read on each frame. */
export interface QueueEnvironment {
  readonly maxQueueBytes: number;
  /** The frame delay of every connection in force (each connection draws its own jitter). */
  frameDelay(): FrameDelaySpec;
  isStreamStalled(key: string): boolean;
  /** Time source of frame timestamps, delays and stalls. */
  readonly clock: Clock;
}

export type QueueItem =
  | { readonly kind: 'text'; readonly text: string; readonly sub?: FeedSubscription }
  | { readonly kind: 'update'; readonly sub: FeedSubscription; readonly event: StreamEvent }
  | { readonly kind: 'close'; readonly code: number; readonly reason: string };

interface Waiting {
  readonly item: QueueItem;
  readonly size: number;
  dueAt: number;
}

/** Fixed allowance for the envelope around an update's data (keys, seq, timestamp). */
const UPDATE_OVERHEAD = 120;

function sizeOf(item: QueueItem): number {
  switch (item.kind) {
    case 'text':
      return item.text.length;
    case 'update':
      return item.sub.updatePrefix.length + item.event.dataJson.length + UPDATE_OVERHEAD;
    case 'close':
      return 0;
  }
}

function streamOf(item: QueueItem): string | undefined {
  return item.kind === 'close' ? undefined : item.sub?.key;
}

export class OutgoingQueue {
  private waiting: Waiting[] = [];
  private head = 0;
  /** Frames of stalled streams, by stream key. */
  private readonly held = new Map<string, Waiting[]>();
  private waitingBytes = 0;
  private stalledUntil = 0;
  private timer: Timer | undefined;
  private timerAt = Infinity;
  private ended = false;

  constructor(
    private readonly sink: FrameSink,
    private readonly env: QueueEnvironment,
    /** This connection's delay schedule (its own delay and jitter draws). */
    readonly delay: FrameDelay,
    /** Called once when the queue overflowed and the socket was dropped. */
    private readonly onOverflow: () => void = () => {},
  ) {}

  /** Bytes waiting here (delayed, stalled or held), not counting the socket's own buffer. */
  get queuedBytes(): number {
    return this.waitingBytes;
  }

  /** True while a connection stall is in force. */
  get stalled(): boolean {
    return this.stalledUntil > this.env.clock.nowMs();
  }

  push(item: QueueItem): void {
    if (this.ended) return;
    const key = streamOf(item);
    if (key !== undefined && this.env.isStreamStalled(key)) {
      const size = sizeOf(item);
      let list = this.held.get(key);
      if (!list) this.held.set(key, (list = []));
      list.push({ item, size, dueAt: 0 });
      this.waitingBytes += size;
      this.checkOverflow();
      return;
    }
    const shared = this.env.frameDelay();
    const delayed = this.delay.inForce(shared);
    if (this.head === this.waiting.length && this.stalledUntil === 0 && !delayed) {
      this.write(item);
      if (!this.ended) this.checkOverflow();
      return;
    }
    const size = sizeOf(item);
    const now = this.env.clock.nowMs();
    this.waiting.push({ item, size, dueAt: delayed ? this.delay.dueAt(now, shared) : now });
    this.waitingBytes += size;
    if (this.checkOverflow()) this.schedule();
  }

  /** Holds every frame for `ms` (pongs and acks too); a new stall never shortens one in force. */
  stall(ms: number): void {
    if (this.ended) return;
    this.stalledUntil = Math.max(this.stalledUntil, this.env.clock.nowMs() + ms);
    this.schedule();
  }

  /** Ends a connection stall now: what waited leaves, in order. */
  unstall(): void {
    if (this.ended || this.stalledUntil === 0) return;
    this.stalledUntil = 0;
    this.flush();
  }

  /** A stream's stall ended: its held frames join the queue, in order, due now. */
  releaseStream(key: string): void {
    const list = this.held.get(key);
    if (!list) return;
    this.held.delete(key);
    const now = this.env.clock.nowMs();
    for (const w of list) {
      w.dueAt = now;
      this.waiting.push(w);
    }
    this.flush();
  }

  /** Forgets the held frames of a subscription that ended (nothing is sent for it any more). */
  discardHeld(sub: FeedSubscription): void {
    const list = this.held.get(sub.key);
    if (!list) return;
    const kept: Waiting[] = [];
    for (const w of list) {
      if (w.item.kind !== 'close' && w.item.sub === sub) this.waitingBytes -= w.size;
      else kept.push(w);
    }
    if (kept.length === 0) this.held.delete(sub.key);
    else this.held.set(sub.key, kept);
  }

  /** Stops every timer and discards what waits (the socket is gone). */
  dispose(): void {
    this.ended = true;
    this.clearTimer();
    this.waiting = [];
    this.head = 0;
    this.held.clear();
    this.waitingBytes = 0;
  }

  private flush = (): void => {
    this.clearTimer();
    if (this.ended) return;
    const now = this.env.clock.nowMs();
    if (this.stalledUntil > now) {
      this.schedule();
      return;
    }
    this.stalledUntil = 0;
    while (this.head < this.waiting.length) {
      const w = this.waiting[this.head]!;
      if (w.dueAt > now) break;
      this.head++;
      this.waitingBytes -= w.size;
      this.write(w.item);
      if (this.ended) return;
    }
    if (this.head === this.waiting.length) {
      this.waiting = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    if (this.checkOverflow()) this.schedule();
  };

  private write(item: QueueItem): void {
    switch (item.kind) {
      case 'text':
        this.sink.send(item.text);
        return;
      case 'update': {
        const { sub, event } = item;
        this.sink.send(writeUpdateFrame(sub.updatePrefix, event.seq, this.env.clock.nowNs(), event.dataJson));
        return;
      }
      case 'close':
        this.dispose();
        this.sink.close(item.code, item.reason);
        return;
    }
  }

  /** Drops the socket when the queue is over its bound. Returns false when it did. */
  private checkOverflow(): boolean {
    if (this.sink.bufferedAmount() + this.waitingBytes <= this.env.maxQueueBytes) return true;
    this.dispose();
    this.sink.terminate();
    this.onOverflow();
    return false;
  }

  private schedule(): void {
    if (this.ended) return;
    let at: number;
    if (this.stalledUntil > 0) at = this.stalledUntil;
    else if (this.head < this.waiting.length) at = this.waiting[this.head]!.dueAt;
    else return;
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = this.env.clock.setTimer(this.flush, Math.max(0, Math.ceil(at - this.env.clock.nowMs())));
  }

  private clearTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
