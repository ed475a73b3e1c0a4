/**
 * A `Clock` that moves only when the test says so: for tests whose subject is time, without
 * replacing the process's timers. Timers fire in due order (then creation order) during
 * `advance`, each with the clock set to its due time.
 */
import type { Clock, Timer } from '../../src/clock';

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly callback: () => void;
  cancelled: boolean;
}

export class ManualClock implements Clock {
  private ms: number;
  private seq = 0;
  private timers: Pending[] = [];

  /**
   * @param startMs monotonic start, in ms.
   * @param wallStartNs the Unix time (ns) that `startMs` corresponds to.
   */
  constructor(
    private readonly startMs = 0,
    private readonly wallStartNs = 1_700_000_000_000_000_000n,
  ) {
    this.ms = startMs;
  }

  nowMs(): number {
    return this.ms;
  }

  nowNs(): bigint {
    return this.wallStartNs + BigInt(Math.round((this.ms - this.startMs) * 1000)) * 1000n;
  }

  setTimer(callback: () => void, delayMs: number): Timer {
    const t: Pending = { at: this.ms + Math.max(0, delayMs), seq: this.seq++, callback, cancelled: false };
    this.timers.push(t);
    return { cancel: () => void (t.cancelled = true) };
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /**
   * Moves the clock forward by `ms`, firing every timer that falls due, and lets promise
   * continuations run after each one (so an async loop can set its next timer in time).
   */
  async advance(ms: number): Promise<void> {
    const end = this.ms + ms;
    await settle();
    for (let next = this.due(end); next !== undefined; next = this.due(end)) {
      this.ms = next.at;
      next.cancelled = true;
      next.callback();
      await settle();
    }
    this.ms = end;
    this.timers = this.timers.filter((t) => !t.cancelled);
  }

  private due(end: number): Pending | undefined {
    let best: Pending | undefined;
    for (const t of this.timers) {
      if (t.cancelled || t.at > end) continue;
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/** Lets pending promise continuations run (one macrotask turn). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
