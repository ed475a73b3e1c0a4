/**
 * The clock of a replay from a recording: recorded time, moved by the replay (never by the
 * wall clock). `nowMs()` is the recorded time in ms since the session began, `nowNs()` the
 * wall clock of the recording at that time (the session's start plus it), and timers fire
 * when the replay's time reaches them, in order (due time, then the order they were set).
 * @internal (read through `RecordingSource.clock`)
 */
import type { Clock, Timer, TimerOptions } from '../clock';

interface PendingTimer {
  readonly due: number;
  readonly order: number;
  callback: (() => void) | undefined;
}

export class RecordingClock implements Clock {
  /** Recorded time, ms since the session began. */
  private now: number;
  private readonly heap: PendingTimer[] = [];
  private timersSet = 0;
  /** What the next `nowNs()` gives, once (see `stampNextRead`). */
  private stamp: bigint | undefined;

  /**
   * @param startedAtNs the session's wall-clock start, Unix ns
   * @param startMs the recorded time the replay starts at
   * @param onTimerSet told when a timer is set (the replay may have to run for it)
   */
  constructor(
    private readonly startedAtNs: bigint,
    startMs: number,
    private readonly onTimerSet: () => void,
  ) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }

  nowNs(): bigint {
    const stamp = this.stamp;
    if (stamp !== undefined) {
      this.stamp = undefined;
      return stamp;
    }
    return this.startedAtNs + BigInt(Math.round(this.now * 1000)) * 1000n;
  }

  /**
   * The next `nowNs()` read, if it comes before the time moves on, gives `ns`: the clock read
   * the recorded client made at this point (e.g. the receive stamp of a snapshot answer,
   * taken after the answer was parsed), not the answer's arrival time.
   */
  stampNextRead(ns: bigint): void {
    this.stamp = ns;
  }

  /** The wall-clock ns of a recorded time (ms since the session began). */
  wallNs(atMs: number): bigint {
    return this.startedAtNs + BigInt(Math.round(atMs * 1000)) * 1000n;
  }

  setTimer(callback: () => void, delayMs: number, _options?: TimerOptions): Timer {
    const timer: PendingTimer = { due: this.now + Math.max(0, Number.isFinite(delayMs) ? delayMs : 0), order: this.timersSet++, callback };
    this.push(timer);
    this.onTimerSet();
    return { cancel: () => void (timer.callback = undefined) };
  }

  /** Moves the time forward to `atMs` (never back). */
  advanceTo(atMs: number): void {
    if (atMs > this.now) {
      this.now = atMs;
      this.stamp = undefined;
    }
  }

  /** Due time of the next pending timer; undefined when none. */
  nextDue(): number | undefined {
    this.dropCancelled();
    return this.heap[0]?.due;
  }

  /** Fires the next pending timer (the time moves to its due time); false when none. */
  fireNext(): boolean {
    this.dropCancelled();
    const timer = this.pop();
    if (timer === undefined) return false;
    this.advanceTo(timer.due);
    const callback = timer.callback!;
    timer.callback = undefined;
    callback();
    return true;
  }

  /** Forgets every pending timer (the replay is over). */
  clear(): void {
    for (const t of this.heap) t.callback = undefined;
    this.heap.length = 0;
  }

  private dropCancelled(): void {
    while (this.heap.length > 0 && this.heap[0]!.callback === undefined) this.pop();
  }

  private static before(a: PendingTimer, b: PendingTimer): boolean {
    return a.due < b.due || (a.due === b.due && a.order < b.order);
  }

  private push(t: PendingTimer): void {
    const h = this.heap;
    h.push(t);
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!RecordingClock.before(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  private pop(): PendingTimer | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length === 0 || last === undefined) return top;
    h[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && RecordingClock.before(h[l]!, h[m]!)) m = l;
      if (r < h.length && RecordingClock.before(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
    return top;
  }
}
