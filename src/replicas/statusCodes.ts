/**
 * Why a replica's status changed: the `code` of every `StatusChange`. Codes are stable
 * across versions: match on them, never on `reason` (prose for people, which may change).
 * Every resync trigger (`RESYNC_TRIGGERS`) is also a code, of the same name.
 */

/** Every transition code, with what it means. */
export const STATUS_CODES = {
  subscribed: 'the source confirmed the subscription (first time, or again after a disconnect): a snapshot is requested',
  resubscribed: 'the source confirmed the subscription again while the replica was live (a resync trigger)',
  snapshot_applied: 'a snapshot was applied, with the updates buffered meanwhile folded in: live',
  caught_up: 'the stream reached a snapshot that was ahead of it: live',
  resync_required: 'the source said it skipped updates (gap, lag, an invalid update): resync',
  seq_jump: 'an update skipped sequence numbers: resync',
  seq_regression: 'an update repeated or went back (a numbering that restarted): resync',
  snapshot_ahead: 'a snapshot stayed ahead of the stream for `snapshotAheadMs` (fetched again after a backoff), or the first update after a snapshot shown at once was below it (the stream behind it, or a numbering that restarted: fetched again)',
  integrity: 'the reducer rejected an update (ReplicaIntegrityError): resync',
  liveness: 'no update for `livenessMs` while subscribed: resync',
  manual: '`resync()` was called: resync',
  disconnected: 'the stream dropped (the socket closed): stale until the next `subscribed`',
  stream_ended: 'the source completed the stream: stale',
  subscribe_timeout: 'the subscribe got no answer in time: subscribing again after `retryAfterMs`',
  failed_subscription: 'the source refused the subscription (unknown scope, feed unavailable): failed, terminal',
  failed_snapshot: 'the snapshot cannot be had (the exchange answered 4xx, or its parameters are invalid): failed, terminal',
} as const;

/** A stable transition code (a key of {@link STATUS_CODES}). */
export type ReplicaTransitionCode = keyof typeof STATUS_CODES;
