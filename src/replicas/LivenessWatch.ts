/**
 * The liveness window of a stream: calls `onIdle` when no activity was recorded for
 * `windowMs`. One timer per window, re-armed from the last activity, so recording an
 * update costs one clock read.
 */
export class LivenessWatch {
  private timer?: ReturnType<typeof setTimeout>;
  private lastActivityMs = 0;

  /** @param windowMs 0 disables the watch. */
  constructor(
    private readonly windowMs: number,
    private readonly nowMs: () => number,
    private readonly onIdle: (idleMs: number) => void,
  ) {}

  /** Starts (or restarts) the window from now. */
  arm(): void {
    this.stop();
    if (this.windowMs <= 0) return;
    this.lastActivityMs = this.nowMs();
    this.schedule(this.windowMs);
  }

  /** Records activity. */
  touch(): void {
    this.lastActivityMs = this.nowMs();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const idle = this.nowMs() - this.lastActivityMs;
      if (idle >= this.windowMs) this.onIdle(idle);
      else this.schedule(this.windowMs - idle);
    }, delayMs);
    // A replica's timer alone must not keep the process alive.
    this.timer.unref?.();
  }
}
