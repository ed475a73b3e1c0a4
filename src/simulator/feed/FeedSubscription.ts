/** One subscription of one connection to one stream. @internal */
import type { ChannelName, Scope } from '../../protocol';

export interface FeedSubscription {
  /** The server's id, unique among every subscription this feed server ever created. */
  readonly id: string;
  readonly channel: ChannelName;
  readonly scope: Scope;
  /** Canonical stream key (`streamKey(channel, scope)`). */
  readonly key: string;
  /** Id of the connection that owns it. */
  readonly connectionId: number;
  /** The constant head of its update frames (the protocol's `updateFramePrefix`). */
  readonly updatePrefix: string;
  /** Updates of its stream were skipped: a `resync_required` precedes the next update. */
  resyncPending: boolean;
  /** False once unsubscribed or its connection closed. */
  active: boolean;
}
