/**
 * Per-stream fault state consulted by the feed's fan-out: updates to skip (silently, or
 * followed by `resync_required`), and stalls that hold a stream's frames back. Skips are
 * per stream (every subscriber misses the update) or per (stream, connection) (one
 * connection misses it; the others get it, under the same `seq`, the stream's numbering
 * being shared by all its subscribers). @internal
 */
import { systemClock, type Clock, type Timer } from '../../clock/Clock';

/** What the fan-out does with one published event of a stream. */
export type StreamVerdict = 'deliver' | 'skipSilently' | 'skipWithResync';

/** Pending skips of one connection on one stream. */
interface ConnectionSkips {
  resync: number;
  silent: number;
}

interface Stall {
  until: number;
  timer: Timer;
}

export class StreamFaults {
  private readonly silentSkips = new Map<string, number>();
  private readonly resyncSkips = new Map<string, number>();
  private readonly stalls = new Map<string, Stall>();
  /** Skips of one connection, by stream key then connection id. */
  private readonly connectionSkips = new Map<string, Map<number, ConnectionSkips>>();

  /**
   * @param onStallEnd called when a stream's stall is over, to release its held frames
   * @param clock time source of the stalls
   */
  constructor(
    private readonly onStallEnd: (key: string) => void,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The next `n` updates of stream `key` are sent to nobody, and nothing says so. */
  skipSilently(key: string, n: number): void {
    this.silentSkips.set(key, (this.silentSkips.get(key) ?? 0) + n);
  }

  /** The next `n` updates of stream `key` are skipped; its subscribers then get `resync_required`. */
  skipWithResync(key: string, n: number): void {
    this.resyncSkips.set(key, (this.resyncSkips.get(key) ?? 0) + n);
  }

  /** Consumes one pending skip of the stream, if any. Resync skips go first. */
  verdict(key: string): StreamVerdict {
    if (this.resyncSkips.size !== 0 && this.take(this.resyncSkips, key)) return 'skipWithResync';
    if (this.silentSkips.size !== 0 && this.take(this.silentSkips, key)) return 'skipSilently';
    return 'deliver';
  }

  /** The next `n` updates of stream `key` are not sent to connection `connectionId`, and nothing says so. */
  skipSilentlyOn(key: string, connectionId: number, n: number): void {
    this.skipsOf(key, connectionId).silent += n;
  }

  /** The next `n` updates of stream `key` are not sent to connection `connectionId`; its subscriptions then get `resync_required`. */
  skipWithResyncOn(key: string, connectionId: number, n: number): void {
    this.skipsOf(key, connectionId).resync += n;
  }

  /** True when some connection has skips pending on stream `key` (then ask {@link connectionVerdict} per connection). */
  hasConnectionSkips(key: string): boolean {
    return this.connectionSkips.size !== 0 && this.connectionSkips.has(key);
  }

  /** Consumes one pending skip of connection `connectionId` on stream `key`, if any. Resync skips go first. */
  connectionVerdict(key: string, connectionId: number): StreamVerdict {
    const byConnection = this.connectionSkips.get(key);
    const skips = byConnection?.get(connectionId);
    if (byConnection === undefined || skips === undefined) return 'deliver';
    const verdict: StreamVerdict = skips.resync > 0 ? 'skipWithResync' : 'skipSilently';
    if (verdict === 'skipWithResync') skips.resync--;
    else skips.silent--;
    if (skips.resync === 0 && skips.silent === 0) {
      byConnection.delete(connectionId);
      if (byConnection.size === 0) this.connectionSkips.delete(key);
    }
    return verdict;
  }

  /** Forgets the pending skips of a connection (it closed). */
  forgetConnection(connectionId: number): void {
    for (const [key, byConnection] of this.connectionSkips) {
      if (byConnection.delete(connectionId) && byConnection.size === 0) this.connectionSkips.delete(key);
    }
  }

  /** Holds the stream's frames for `ms` on every connection; a new stall never shortens one in force. */
  stall(key: string, ms: number): void {
    const until = this.clock.nowMs() + ms;
    const current = this.stalls.get(key);
    if (current && current.until >= until) return;
    current?.timer.cancel();
    const timer = this.clock.setTimer(() => {
      this.stalls.delete(key);
      this.onStallEnd(key);
    }, ms);
    this.stalls.set(key, { until, timer });
  }

  isStalled(key: string): boolean {
    return this.stalls.size !== 0 && this.stalls.has(key);
  }

  /** Stream keys with a fault pending or in force (for inspection). */
  pending(): { silentSkips: Record<string, number>; resyncSkips: Record<string, number>; stalled: string[]; connectionSkips: Array<{ key: string; connectionId: number; resync: number; silent: number }> } {
    const connectionSkips = [...this.connectionSkips].flatMap(([key, m]) => [...m].map(([connectionId, s]) => ({ key, connectionId, resync: s.resync, silent: s.silent })));
    return { silentSkips: Object.fromEntries(this.silentSkips), resyncSkips: Object.fromEntries(this.resyncSkips), stalled: [...this.stalls.keys()], connectionSkips };
  }

  /** Clears every skip; ends every stall now (held frames are released). */
  clear(): void {
    this.silentSkips.clear();
    this.resyncSkips.clear();
    this.connectionSkips.clear();
    const keys = [...this.stalls.keys()];
    for (const s of this.stalls.values()) s.timer.cancel();
    this.stalls.clear();
    for (const key of keys) this.onStallEnd(key);
  }

  /** Stops every timer without releasing anything (the server is closing). */
  dispose(): void {
    for (const s of this.stalls.values()) s.timer.cancel();
    this.stalls.clear();
    this.silentSkips.clear();
    this.resyncSkips.clear();
    this.connectionSkips.clear();
  }

  private skipsOf(key: string, connectionId: number): ConnectionSkips {
    let byConnection = this.connectionSkips.get(key);
    if (!byConnection) this.connectionSkips.set(key, (byConnection = new Map()));
    let skips = byConnection.get(connectionId);
    if (!skips) byConnection.set(connectionId, (skips = { resync: 0, silent: 0 }));
    return skips;
  }

  private take(map: Map<string, number>, key: string): boolean {
    const n = map.get(key);
    if (n === undefined) return false;
    if (n <= 1) map.delete(key);
    else map.set(key, n - 1);
    return true;
  }
}
