/**
 * Keep-alive of one open socket. Every `intervalMs` it sends a protocol `ping` (any client
 * frame resets the server's idle timer, and the protocol's ping proves the feed itself is
 * answering, unlike WebSocket control pings). After each ping, the server must send some
 * frame, any frame, within `timeoutMs`; otherwise the socket is declared dead. What the
 * frame says does not matter, so the keep-alive never looks inside one.
 */
import { systemClock, type Clock, type Timer } from '../clock/Clock';

export interface KeepAliveOptions {
  /** Time between two pings. */
  readonly intervalMs: number;
  /** Time after a ping within which some server frame must arrive. */
  readonly timeoutMs: number;
  /** Sends one ping frame. */
  readonly ping: () => void;
  /** Called once when the deadline passes without a frame. */
  readonly onDead: (reason: string) => void;
  /** Time source of both timers. @default systemClock */
  readonly clock?: Clock;
}

export class KeepAlive {
  private pingTimer: Timer | undefined;
  private deadline: Timer | undefined;
  private readonly clock: Clock;

  constructor(private readonly options: KeepAliveOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /** Starts the ping schedule for a freshly opened socket. */
  start(): void {
    this.stop();
    this.schedulePing();
  }

  /** Releases both timers. */
  stop(): void {
    this.pingTimer?.cancel();
    this.deadline?.cancel();
    this.pingTimer = undefined;
    this.deadline = undefined;
  }

  /** Any server frame proves life. Called on the hot path: one comparison when no ping is outstanding. */
  onFrame(): void {
    if (this.deadline === undefined) return;
    this.deadline.cancel();
    this.deadline = undefined;
  }

  private schedulePing(): void {
    this.pingTimer = this.clock.setTimer(this.tick, this.options.intervalMs);
  }

  private readonly tick = (): void => {
    this.pingTimer = undefined;
    // An outstanding deadline keeps running: it measures from the first unanswered ping.
    if (this.deadline === undefined) this.deadline = this.clock.setTimer(this.expire, this.options.timeoutMs);
    this.schedulePing();
    this.options.ping();
  };

  private readonly expire = (): void => {
    this.deadline = undefined;
    this.stop();
    this.options.onDead(`no frame from the server within ${this.options.timeoutMs} ms after a ping`);
  };
}
