/**
 * What the router delivers for one subscription (channel + scope). Replicas consume these;
 * they never see frames, subscription ids of other streams or the socket.
 */

/** The server confirmed the subscription. Sent again after every reconnect, with the new connection's id. */
export interface SubscribedEvent {
  readonly kind: 'subscribed';
  /** The server's id on the current connection (never reused after a reconnect). */
  readonly subscriptionId: string;
  /** Connection generation the id belongs to. */
  readonly generation: number;
}

/**
 * One update of the stream. `data` passed the channel's schema (unexpected keys dropped
 * unless the router is strict). The same object goes to every subscriber of the stream:
 * treat it as read-only.
 */
export interface UpdateEvent {
  readonly kind: 'update';
  /** The stream's sequence number: consecutive updates carry consecutive numbers. */
  readonly seq: bigint;
  /** Server send time, Unix nanoseconds. */
  readonly timestampNs: bigint;
  /** Local receive time, Unix nanoseconds (same clock base as `timestampNs` when clocks agree). */
  readonly receivedAtNs: bigint;
  readonly data: unknown;
  /** The length of the frame that carried it (what holding it costs, roughly, in bytes); the router always sets it. */
  readonly size?: number;
}

/**
 * The replica must be rebuilt from a fresh snapshot: the server skipped updates (`gap`,
 * `lag`) or an update failed validation (`invalid_update`). The subscription stays active.
 */
export interface ResyncRequiredEvent {
  readonly kind: 'resync_required';
  readonly reason: 'gap' | 'lag' | 'invalid_update';
}

/** The socket dropped. Updates stop until a new `subscribed` arrives after the reconnect. */
export interface DisconnectedEvent {
  readonly kind: 'disconnected';
  readonly reason: string;
}

export type RouterEvent = SubscribedEvent | UpdateEvent | ResyncRequiredEvent | DisconnectedEvent;
