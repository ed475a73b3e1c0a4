/**
 * What a bus consumer knows of the relays, from their heartbeats: which streams each carries
 * and with what status, until when a stream counts as carried, and how far each relay
 * vouches for a stream's KV entries.
 */
import type { Clock } from '../clock';
import { ExchangeReplicaError } from '../errors';
import type { ChannelName, Scope } from '../protocol';
import { decodeHeartbeat, DEFAULT_HEARTBEAT_MS, HEARTBEAT_INTERVAL_MS, type RelayStreamStatus } from './wire';

/** One stream relays carry, from their heartbeats. */
export interface CarriedStream {
  readonly streamKey: string;
  readonly channel: ChannelName;
  readonly scope: Scope;
  /** Each relay listing it, with the status it gives. */
  readonly relays: readonly { readonly relayId: string; readonly status: RelayStreamStatus }[];
}

interface RelayView {
  readonly intervalMs: number;
  /** The interval it announced was not believed (reported when it started being so). */
  readonly intervalRefused: boolean;
  atMs: number;
  readonly streams: Map<string, RelayStreamView>;
}

/** One stream in a relay's heartbeat. */
interface RelayStreamView {
  readonly channel: ChannelName;
  readonly scope: Scope;
  readonly status: RelayStreamStatus;
  /** The highest seq the relay says it wrote to the KV bucket (or found there) or published: it vouches for entries up to it. */
  readonly vouched: bigint | undefined;
}

/**
 * Relay statuses that carry a stream: `live`, and `resyncing` (the relay is connected to the
 * exchange and realigning: what it published is what the exchange had; the next epoch shows
 * as a gap and heals from the KV). `syncing`, `stale` and `failed` do not.
 */
const CARRYING: ReadonlySet<RelayStreamStatus> = new Set(['live', 'resyncing']);

export class RelayHeartbeats {
  private readonly relays = new Map<string, RelayView>();
  /** Until when (clock ms) a stream counts as carried live, per stream key. */
  private readonly liveUntil = new Map<string, number>();
  /** Running heartbeats recorded (see `count`). */
  private recorded = 0;

  constructor(
    private readonly clock: Clock,
    /** Heartbeats a relay may miss before its streams are no longer carried. */
    private readonly missed: number,
    /** The longest interval a relay is believed to announce. */
    private readonly maxHeartbeatMs: number,
    private readonly report: (error: unknown) => void,
  ) {}

  /** The streams the relays listed in their heartbeats within `missed` intervals. */
  carried(): CarriedStream[] {
    const now = this.clock.nowMs();
    const out = new Map<string, { channel: ChannelName; scope: Scope; relays: { relayId: string; status: RelayStreamStatus }[] }>();
    for (const [relayId, r] of this.relays) {
      if (now - r.atMs > this.missed * r.intervalMs) continue;
      for (const [key, s] of r.streams) {
        const e = out.get(key) ?? { channel: s.channel, scope: s.scope, relays: [] };
        e.relays.push({ relayId, status: s.status });
        out.set(key, e);
      }
    }
    return [...out.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => ({ streamKey: k, ...v }));
  }

  /** Whether a relay heartbeat listed the stream as carried within `missed` intervals. */
  carries(key: string): boolean {
    return (this.liveUntil.get(key) ?? 0) >= this.clock.nowMs();
  }

  /** The highest seq the relays' recent heartbeats vouch for on a stream (see {@link RelayStreamView}). */
  vouchedFor(key: string): bigint | undefined {
    const now = this.clock.nowMs();
    let best: bigint | undefined;
    for (const r of this.relays.values()) {
      if (now - r.atMs > this.missed * r.intervalMs) continue;
      const v = r.streams.get(key)?.vouched;
      if (v !== undefined && (best === undefined || v > best)) best = v;
    }
    return best;
  }

  /** Running heartbeats recorded so far. */
  get count(): number {
    return this.recorded;
  }

  /** Relays heard from (and not closed or forgotten). */
  get relayCount(): number {
    return this.relays.size;
  }

  /** Forgets every relay (NATS disconnected: their heartbeats are not coming). */
  clear(): void {
    this.liveUntil.clear();
    this.relays.clear();
  }

  /** Reads a heartbeat (an unreadable one is reported); true when a relay's running heartbeat was recorded. */
  read(text: string): boolean {
    let hb;
    try {
      hb = decodeHeartbeat(text);
    } catch (e) {
      this.report(e);
      return false;
    }
    if (hb.state === 'closing') {
      this.relays.delete(hb.relayId);
      return false;
    }
    const now = this.clock.nowMs();
    const intervalRefused = !(hb.intervalMs >= HEARTBEAT_INTERVAL_MS.min && hb.intervalMs <= this.maxHeartbeatMs);
    // Judged at the default interval, and reported when a relay id starts announcing such an interval.
    const intervalMs = intervalRefused ? DEFAULT_HEARTBEAT_MS : hb.intervalMs;
    if (intervalRefused && this.relays.get(hb.relayId)?.intervalRefused !== true) {
      this.report(new ExchangeReplicaError('ERR_BUS', `a heartbeat of relay ${JSON.stringify(hb.relayId.slice(0, 128))} announces an interval of ${hb.intervalMs} ms, outside what a relay may announce (${HEARTBEAT_INTERVAL_MS.min} to ${this.maxHeartbeatMs} ms): judged at ${DEFAULT_HEARTBEAT_MS} ms`));
    }
    const streams = new Map<string, RelayStreamView>();
    for (const s of hb.streams) {
      const vouched = s.snapshotSequence === null ? s.publishedSeq : s.publishedSeq === null || s.snapshotSequence > s.publishedSeq ? s.snapshotSequence : s.publishedSeq;
      streams.set(s.streamKey, { channel: s.channel, scope: s.scope, status: s.status, vouched: vouched ?? undefined });
      if (CARRYING.has(s.status)) this.liveUntil.set(s.streamKey, Math.max(this.liveUntil.get(s.streamKey) ?? 0, now + this.missed * intervalMs));
    }
    this.relays.set(hb.relayId, { intervalMs, intervalRefused, atMs: now, streams });
    this.recorded++;
    return true;
  }
}
