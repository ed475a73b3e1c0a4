/**
 * Keep-alive of one open socket. Every `intervalMs` it sends a protocol `ping` (any client
 * frame resets the server's idle timer, and the protocol's ping proves the feed itself is
 * answering, unlike WebSocket control pings). After each ping, the server must send some
 * frame, any frame, within `timeoutMs`; otherwise the socket is declared dead.
 */

export interface KeepAliveOptions {
  /** Time between two pings. */
  readonly intervalMs: number;
  /** Time after a ping within which some server frame must arrive. */
  readonly timeoutMs: number;
  /** Sends one ping frame. */
  readonly ping: () => void;
  /** Called once when the deadline passes without a frame. */
  readonly onDead: (reason: string) => void;
}

export class KeepAlive {
  private pingTimer: ReturnType<typeof setTimeout> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: KeepAliveOptions) {}

  /** Starts the ping schedule for a freshly opened socket. */
  start(): void {
    this.stop();
    this.schedulePing();
  }

  /** Releases both timers. */
  stop(): void {
    if (this.pingTimer !== undefined) clearTimeout(this.pingTimer);
    if (this.deadline !== undefined) clearTimeout(this.deadline);
    this.pingTimer = undefined;
    this.deadline = undefined;
  }

  /** Any server frame proves life. Called on the hot path: one comparison when no ping is outstanding. */
  onFrame(): void {
    if (this.deadline === undefined) return;
    clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  private schedulePing(): void {
    this.pingTimer = setTimeout(this.tick, this.options.intervalMs);
  }

  private readonly tick = (): void => {
    this.pingTimer = undefined;
    // An outstanding deadline keeps running: it measures from the first unanswered ping.
    if (this.deadline === undefined) this.deadline = setTimeout(this.expire, this.options.timeoutMs);
    this.schedulePing();
    this.options.ping();
  };

  private readonly expire = (): void => {
    this.deadline = undefined;
    this.stop();
    this.options.onDead(`no frame from the server within ${this.options.timeoutMs} ms after a ping`);
  };
}
