/**
 * When a long-running command stops: after `durationMs`, on SIGINT/SIGTERM, or when asked
 * (a key). One promise, resolved once with the reason; `dispose` removes every handler and
 * timer so the process can exit by itself. @internal
 */

/** Why a run ended. */
export type StopReason = 'duration' | 'signal' | 'quit' | 'count' | 'error';

export class RunControl {
  /** Resolves with the first reason given. */
  readonly stopped: Promise<StopReason>;
  private resolve!: (reason: StopReason) => void;
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  private readonly onSignal = (): void => this.stop('signal');

  /** @param durationMs stop by itself after this long (undefined: run until stopped) */
  constructor(durationMs?: number) {
    this.stopped = new Promise((r) => (this.resolve = r));
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
    if (durationMs !== undefined) this.timer = setTimeout(() => this.stop('duration'), durationMs);
  }

  /** True once a stop was asked for. */
  get isStopped(): boolean {
    return this.done;
  }

  stop(reason: StopReason): void {
    if (this.done) return;
    this.done = true;
    this.resolve(reason);
  }

  dispose(): void {
    this.stop('quit');
    if (this.timer) clearTimeout(this.timer);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
