/**
 * The liveness window of a stream: calls `onIdle` when no activity was recorded for
 * `windowMs`. One timer per window, re-armed from the last activity, so recording an
 * update costs one clock read.
 */
import type { Clock, Timer } from '../clock';

export class LivenessWatch {
  private timer?: Timer;
  private lastActivityMs = 0;

  /** @param windowMs 0 disables the watch. */
  constructor(
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly onIdle: (idleMs: number) => void,
  ) {}

  /** Starts (or restarts) the window from now. */
  arm(): void {
    this.stop();
    if (this.windowMs <= 0) return;
    this.lastActivityMs = this.clock.nowMs();
    this.schedule(this.windowMs);
  }

  /** Records activity. */
  touch(): void {
    this.lastActivityMs = this.clock.nowMs();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    // A replica's timer alone must not keep the process alive.
    this.timer = this.clock.setTimer(
      () => {
        this.timer = undefined;
        const idle = this.clock.nowMs() - this.lastActivityMs;
        if (idle >= this.windowMs) this.onIdle(Math.round(idle));
        else this.schedule(this.windowMs - idle);
      },
      delayMs,
      { unref: true },
    );
  }
}
