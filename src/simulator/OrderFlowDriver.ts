/**
 * Drives the engine's seeded order flow at a steady rate of events per second, on a short
 * tick. What the events are depends on the seed only; how many run per tick follows the
 * wall clock (catch-up after a stall is capped at one second's worth). @internal
 */

/**
 * Tick of the order flow: short enough that a book changes many times a second. Its events
 * (and the frames they cause) leave in bursts this far apart.
 */
export const ORDER_FLOW_TICK_MS = 10;

export class OrderFlowDriver {
  private timer: NodeJS.Timeout | undefined;
  private lastAt = 0;
  private carry = 0;

  constructor(
    private readonly step: (n: number) => void,
    private readonly eventsPerSecond: number,
  ) {}

  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Starts (or keeps) the flow. A rate of 0 never runs. */
  start(): void {
    if (this.timer || this.eventsPerSecond <= 0) return;
    this.lastAt = performance.now();
    this.carry = 0;
    this.timer = setInterval(this.tick, ORDER_FLOW_TICK_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private readonly tick = (): void => {
    const now = performance.now();
    const due = this.carry + (this.eventsPerSecond * (now - this.lastAt)) / 1000;
    this.lastAt = now;
    const n = Math.min(Math.floor(due), Math.ceil(this.eventsPerSecond));
    this.carry = n === Math.floor(due) ? due - n : 0;
    if (n > 0) this.step(n);
  };
}
