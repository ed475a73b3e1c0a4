import type { Clock, Timer } from '../clock/Clock';

/**
 * Closes a connection that nobody uses: armed when the last subscriber of the last stream
 * leaves, it acts after `delayMs` unless a subscriber came back (`cancel`) or the router
 * stopped being idle in the meantime (`idle` is asked again when the timer fires).
 */
export class IdleCloser {
  private timer: Timer | undefined;

  /**
   * @param delayMs `Infinity`: never closes.
   * @param idle whether nothing needs the connection now.
   * @param close called with the reason once the delay passed idle.
   */
  constructor(
    private readonly delayMs: number,
    private readonly clock: Clock,
    private readonly idle: () => boolean,
    private readonly close: (reason: string) => void,
  ) {}

  /** Starts the delay if the router is idle and it is not running yet. */
  arm(): void {
    if (this.timer !== undefined || this.delayMs === Number.POSITIVE_INFINITY || !this.idle()) return;
    // unref: this timer must not be what keeps a process alive (the socket does, until it fires).
    this.timer = this.clock.setTimer(
      () => {
        this.timer = undefined;
        if (this.idle()) this.close(`no subscriber for ${this.delayMs} ms`);
      },
      this.delayMs,
      { unref: true },
    );
  }

  cancel(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }
}
