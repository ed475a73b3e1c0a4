/**
 * The loop of a replay from a recording: delivers the events of every subscriber's playback
 * in recorded order (earliest recorded time first, catch-up events at the current time; the
 * place in the file breaks ties) and fires the clock's timers when the recorded time reaches
 * them (a timer due before the next event fires first). At `speed: Infinity` it runs as fast
 * as it can, in slices (the process stays responsive); at a finite speed it waits for the
 * real time of each event. After an event that may start async work in its subscriber (a
 * subscription change, a resync, a snapshot answer) or a timer, it lets that work run (one
 * macrotask) before the next event, as the live client did: a snapshot answered is applied
 * before the next update arrives. @internal
 */
import type { Clock, Timer } from '../clock';
import type { TornTail } from './chunks';
import type { RecordingClock } from './RecordingClock';
import type { RecordingIndex } from './recordingIndex';
import type { RecordingSourceResult } from './recordingSourceOptions';
import type { StreamPlayback } from './StreamPlayback';

export interface ReplayDriverConfig {
  readonly index: RecordingIndex;
  readonly clock: RecordingClock;
  readonly speed: number;
  readonly torn: TornTail | undefined;
  /** Real time: what a replay at a finite speed waits for, what the slices and `realMs` measure. */
  readonly realClock: Clock;
}

/** Real time one slice of a full-speed replay runs before it lets the process do anything else (ms). */
const SLICE_MS = 20;

export class ReplayDriver {
  updates = 0;
  events = 0;
  readonly ended: Promise<RecordingSourceResult>;
  private readonly playbacks: StreamPlayback[] = [];
  private delivering: StreamPlayback | undefined;
  private started = false;
  private finished = false;
  private scheduled = false;
  private waitTimer: Timer | undefined;
  private realStart = 0;
  private realOrigin = 0;
  private recordedOrigin = 0;
  private resolveEnded!: (r: RecordingSourceResult) => void;

  constructor(private readonly config: ReplayDriverConfig) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  /** A new subscriber: the replay starts (or goes on) with it. */
  add(playback: StreamPlayback): void {
    this.playbacks.push(playback);
    if (!this.started) {
      this.started = true;
      this.realStart = this.realOrigin = this.config.realClock.nowMs();
      this.recordedOrigin = this.config.clock.nowMs();
    }
    this.wake();
  }

  remove(playback: StreamPlayback): void {
    playback.close();
    const i = this.playbacks.indexOf(playback);
    if (i >= 0) this.playbacks.splice(i, 1);
  }

  /**
   * The playback a snapshot query of `key` comes from: the one whose event is being delivered
   * (a replica asks in reaction to it), else the newest of that stream not waiting already.
   */
  playbackFor(key: string): StreamPlayback | undefined {
    const d = this.delivering;
    if (d !== undefined && d.key === key && !d.closed) return d;
    let fallback: StreamPlayback | undefined;
    for (let i = this.playbacks.length - 1; i >= 0; i--) {
      const p = this.playbacks[i]!;
      if (p.key !== key) continue;
      if (!p.querying) return p;
      fallback ??= p;
    }
    return fallback;
  }

  /** Something to do may have come (a subscriber, a timer): runs soon. */
  wake(): void {
    if (!this.started || this.finished || this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  close(): void {
    this.finish('closed');
  }

  private readonly run = (): void => {
    this.scheduled = false;
    this.waitTimer?.cancel();
    this.waitTimer = undefined;
    if (this.finished) return;
    try {
      this.step();
    } catch (error) {
      this.finish('failed', error);
    }
  };

  private step(): void {
    const clock = this.config.clock;
    const sliceStart = this.config.realClock.nowMs();
    for (let n = 1; ; n++) {
      const now = clock.nowMs();
      let next: StreamPlayback | undefined;
      let nextAt = Number.POSITIVE_INFINITY;
      for (const p of this.playbacks) {
        if (p.headOrder === Number.POSITIVE_INFINITY) continue;
        const at = p.headAt < now ? now : p.headAt;
        if (next === undefined || at < nextAt || (at === nextAt && p.headOrder < next.headOrder)) [next, nextAt] = [p, at];
      }
      // Nothing ahead for anyone: the recorded time runs on to the session's end, for the timers.
      const index = this.config.index;
      const limit = next !== undefined ? nextAt : this.playbacks.length > 0 ? (index.end?.durationMs ?? index.lastAt) : Number.NEGATIVE_INFINITY;
      const due = clock.nextDue();
      if (due !== undefined && due <= limit) {
        if (!this.reached(due)) return this.waitFor(due);
        clock.fireNext();
        return this.yieldNow();
      }
      if (next === undefined) {
        if (this.playbacks.length > 0) this.finish('ended');
        return;
      }
      if (!this.reached(nextAt)) return this.waitFor(nextAt);
      clock.advanceTo(nextAt);
      this.delivering = next;
      let kind: 'update' | 'event' | 'async';
      try {
        kind = next.deliver();
      } finally {
        this.delivering = undefined;
      }
      this.events++;
      if (kind === 'update') this.updates++;
      else if (kind === 'async') return this.yieldNow();
      if ((n & 511) === 0 && this.config.realClock.nowMs() - sliceStart > SLICE_MS) return this.yieldNow();
    }
  }

  /** True when the real time of recorded time `at` has come (always, at full speed). */
  private reached(at: number): boolean {
    const speed = this.config.speed;
    return speed === Number.POSITIVE_INFINITY || this.config.realClock.nowMs() >= this.realOrigin + (at - this.recordedOrigin) / speed;
  }

  private waitFor(at: number): void {
    const ms = this.realOrigin + (at - this.recordedOrigin) / this.config.speed - this.config.realClock.nowMs();
    this.scheduled = true;
    this.waitTimer = this.config.realClock.setTimer(this.run, Math.max(1, Math.ceil(ms)));
  }

  private yieldNow(): void {
    this.scheduled = true;
    setImmediate(this.run);
  }

  private finish(reason: RecordingSourceResult['reason'], error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    this.waitTimer?.cancel();
    // At the end the replicas keep what they have; stopped, their snapshot requests are let go.
    if (reason !== 'ended') for (const p of this.playbacks) p.close();
    const index = this.config.index;
    this.resolveEnded({
      updates: this.updates,
      events: this.events,
      recordedMs: this.config.clock.nowMs(),
      realMs: this.started ? this.config.realClock.nowMs() - this.realStart : 0,
      end: index.end,
      torn: this.config.torn,
      reason,
      ...(error !== undefined ? { error } : {}),
    });
  }
}
