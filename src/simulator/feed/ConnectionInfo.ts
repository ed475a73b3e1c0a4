/**
 * What the feed server lists of its connections, for tests and tools (`FaultInjector`
 * `connections()`). Apart from `FeedConnection`, whose constructor takes a socket of `ws`: the
 * package's declarations reach these without needing `ws`'s types.
 */
import type { ChannelName, Scope } from '../../protocol';
import type { FrameDelaySpec } from './FrameDelay';

/** A subscription as listed for tests and tools. */
export interface SubscriptionInfo {
  readonly id: string;
  readonly channel: ChannelName;
  readonly scope: Scope;
  readonly key: string;
}

/** A connection as listed for tests and tools. */
export interface ConnectionInfo {
  readonly id: number;
  readonly remoteAddress: string;
  /** Wall-clock Unix ms of the upgrade. */
  readonly openedAtMs: number;
  /** Bytes waiting in the server's queue for this connection (delayed, stalled or held frames). */
  readonly queuedBytes: number;
  readonly stalled: boolean;
  /** This connection's own frame delay (added to the one of every connection). */
  readonly frameDelay: FrameDelaySpec;
  readonly subscriptions: readonly SubscriptionInfo[];
}
