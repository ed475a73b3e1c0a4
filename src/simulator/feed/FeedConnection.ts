/**
 * One feed connection: answers the client's frames (subscribe, unsubscribe, ping), sends
 * its subscriptions' updates through its bounded {@link OutgoingQueue}, and closes it with
 * `HEARTBEAT_TIMEOUT` after `heartbeatTimeoutMs` without any client frame. @internal
 */
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import type { Timer } from '../../clock/Clock';
import { parseClientFrame, subscribeScope, writeServerFrame, type ChannelName, type ClientFrameResult, type FeedErrorCode, type Scope } from '../../protocol';
import type { StreamEvent } from '../StreamHub';
import type { ConnectionInfo } from './ConnectionInfo';
import type { FeedSubscription } from './FeedSubscription';
import type { FrameDelay, FrameDelaySpec } from './FrameDelay';
import { OutgoingQueue, type QueueEnvironment } from './OutgoingQueue';

/** What a connection needs from its feed server. */
export interface ConnectionHost {
  readonly heartbeatTimeoutMs: number;
  /** Creates and indexes a subscription, or returns why the scope is refused. */
  subscribe(connectionId: number, channel: ChannelName, scope: Scope): FeedSubscription | string;
  /** Removes a subscription from the stream index. */
  unsubscribe(sub: FeedSubscription): void;
  /** The connection's socket closed (by either side). */
  closed(connectionId: number): void;
  /** The connection's queue overflowed and its socket was dropped. */
  overflowed?(connectionId: number): void;
}

/** Close code for server-initiated closes after a closing error frame. */
const NORMAL_CLOSE = 1000;

/** The answer to a binary frame. */
const BINARY_REFUSED: ClientFrameResult = {
  ok: false,
  error: { code: 'INVALID_MESSAGE', message: 'binary frames are not accepted: send JSON text frames', requestId: '', subscriptionId: null, key: null },
};

export class FeedConnection {
  readonly openedAtMs: number;
  private readonly subs = new Map<string, FeedSubscription>();
  readonly queue: OutgoingQueue;
  private lastHeardAt: number;
  private heartbeat: Timer | undefined;
  private corked = false;
  private ended = false;

  constructor(
    readonly id: number,
    private readonly ws: WebSocket,
    /** The TCP socket under `ws`, corked for the rest of a tick so a burst leaves in one write. */
    private readonly raw: Duplex,
    private readonly host: ConnectionHost,
    private readonly env: QueueEnvironment,
    readonly remoteAddress: string,
    /** The schedule of this connection's frame delays (its own jitter draws). */
    delay: FrameDelay,
  ) {
    this.openedAtMs = Number(env.clock.nowNs() / 1_000_000n);
    this.lastHeardAt = env.clock.nowMs();
    this.queue = new OutgoingQueue(
      {
        send: (text) => this.send(text),
        bufferedAmount: () => this.ws.bufferedAmount,
        close: (code, reason) => this.ws.close(code, reason),
        terminate: () => this.ws.terminate(),
      },
      env,
      delay,
      () => host.overflowed?.(id),
    );
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.dispose());
    // A socket error is followed by 'close'; nothing else to do, but it must be listened to.
    ws.on('error', () => {});
    this.heartbeat = env.clock.setTimer(this.checkHeartbeat, host.heartbeatTimeoutMs);
  }

  /** Sends one update of `sub`'s stream, after a `resync_required` when updates were skipped. */
  deliver(sub: FeedSubscription, event: StreamEvent): void {
    if (sub.resyncPending) {
      sub.resyncPending = false;
      this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'resync_required', subscription_id: sub.id, channel: sub.channel, reason: 'gap' }), sub });
    }
    this.queue.push({ kind: 'update', sub, event });
  }

  /** Holds every outgoing frame (updates, acks, pongs) for `ms`; the socket stays open. */
  stall(ms: number): void {
    this.queue.stall(ms);
  }

  /** Sets this connection's own frame delay (added to the one of every connection) from the next frame on. */
  setDelay(spec: FrameDelaySpec): void {
    this.queue.delay.own = spec;
  }

  /** Ends a stall now. */
  unstall(): void {
    this.queue.unstall();
  }

  /** Drops the socket at once (no close frame). */
  drop(): void {
    this.queue.dispose();
    this.ws.terminate();
  }

  /** Sends a closing error frame (after what is already queued), then closes. */
  closeWithError(code: FeedErrorCode, message: string): void {
    if (this.ended) return;
    this.ended = true;
    this.clearHeartbeat();
    this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'error', request_id: '', subscription_id: null, code, error: message }) });
    this.queue.push({ kind: 'close', code: NORMAL_CLOSE, reason: code });
  }

  /** Active subscriptions, oldest first. */
  subscriptions(): FeedSubscription[] {
    return [...this.subs.values()];
  }

  info(): ConnectionInfo {
    return {
      id: this.id,
      remoteAddress: this.remoteAddress,
      openedAtMs: this.openedAtMs,
      queuedBytes: this.queue.queuedBytes,
      stalled: this.queue.stalled,
      frameDelay: this.queue.delay.own,
      subscriptions: this.subscriptions().map(({ id, channel, scope, key }) => ({ id, channel, scope, key })),
    };
  }

  private send(text: string): void {
    if (!this.corked) {
      this.corked = true;
      this.raw.cork();
      process.nextTick(this.uncork);
    }
    this.ws.send(text);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.raw.uncork();
  };

  private onMessage(data: RawData, isBinary: boolean): void {
    this.lastHeardAt = this.env.clock.nowMs();
    if (this.ended) return;
    const parsed: ClientFrameResult = isBinary ? BINARY_REFUSED : parseClientFrame(data.toString());
    if (!parsed.ok) {
      const { code, message, requestId, subscriptionId } = parsed.error;
      this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'error', request_id: requestId, subscription_id: subscriptionId, code, error: message }) });
      return;
    }
    const frame = parsed.frame;
    switch (frame.type) {
      case 'ping':
        this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'pong', request_id: frame.request_id, timestamp_ns: String(this.env.clock.nowNs()) }) });
        return;
      case 'subscribe': {
        const sub = this.host.subscribe(this.id, frame.channel, subscribeScope(frame));
        if (typeof sub === 'string') {
          this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'error', request_id: frame.request_id, subscription_id: null, code: 'INVALID_SUBSCRIPTION', error: sub }) });
          return;
        }
        this.subs.set(sub.id, sub);
        this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'subscribed', request_id: frame.request_id, subscription_id: sub.id, channel: sub.channel }) });
        return;
      }
      case 'unsubscribe': {
        const sub = this.subs.get(frame.subscription_id);
        if (!sub) {
          const message = `subscription ${JSON.stringify(frame.subscription_id)} is not active on this connection`;
          this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'error', request_id: frame.request_id, subscription_id: frame.subscription_id, code: 'UNKNOWN_SUBSCRIPTION', error: message }) });
          return;
        }
        this.end(sub);
        this.queue.push({ kind: 'text', text: writeServerFrame({ type: 'unsubscribed', request_id: frame.request_id, subscription_id: sub.id }) });
        return;
      }
    }
  }

  private end(sub: FeedSubscription): void {
    sub.active = false;
    this.subs.delete(sub.id);
    this.host.unsubscribe(sub);
    this.queue.discardHeld(sub);
  }

  private readonly checkHeartbeat = (): void => {
    const timeout = this.host.heartbeatTimeoutMs;
    const left = timeout - (this.env.clock.nowMs() - this.lastHeardAt);
    if (left > 0) {
      this.heartbeat = this.env.clock.setTimer(this.checkHeartbeat, Math.ceil(left));
      return;
    }
    this.heartbeat = undefined;
    this.closeWithError('HEARTBEAT_TIMEOUT', `no frame from the client for ${timeout} ms`);
  };

  private clearHeartbeat(): void {
    this.heartbeat?.cancel();
    this.heartbeat = undefined;
  }

  private dispose(): void {
    this.ended = true;
    this.clearHeartbeat();
    this.queue.dispose();
    for (const sub of this.subs.values()) {
      sub.active = false;
      this.host.unsubscribe(sub);
    }
    this.subs.clear();
    this.host.closed(this.id);
  }
}
