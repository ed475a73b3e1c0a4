/**
 * Text of the server frames (streaming-protocol.md section 3), keys in the documented order.
 * Updates are built by concatenation around the event's precomputed `dataJson`, so a stream
 * event is serialized once whatever the number of subscribers. @internal
 */
import type { FeedErrorCode, ResyncReason } from '../../protocol';

/**
 * The constant head of a subscription's update frames, up to the opening quote of `seq`.
 * Computed once per subscription.
 */
export function updatePrefix(subscriptionId: string, channel: string): string {
  return `{"type":"update","subscription_id":${JSON.stringify(subscriptionId)},"channel":${JSON.stringify(channel)},"seq":"`;
}

/** One update frame: `prefix` from {@link updatePrefix}, `dataJson` already serialized. */
export function updateFrame(prefix: string, seq: bigint, timestampNs: bigint, dataJson: string): string {
  return prefix + seq + '","timestamp_ns":"' + timestampNs + '","data":' + dataJson + '}';
}

export function subscribedFrame(requestId: string, subscriptionId: string, channel: string): string {
  return JSON.stringify({ type: 'subscribed', request_id: requestId, subscription_id: subscriptionId, channel });
}

export function unsubscribedFrame(requestId: string, subscriptionId: string): string {
  return JSON.stringify({ type: 'unsubscribed', request_id: requestId, subscription_id: subscriptionId });
}

export function pongFrame(requestId: string, timestampNs: bigint): string {
  return JSON.stringify({ type: 'pong', request_id: requestId, timestamp_ns: String(timestampNs) });
}

export function resyncRequiredFrame(subscriptionId: string, channel: string, reason: ResyncReason): string {
  return JSON.stringify({ type: 'resync_required', subscription_id: subscriptionId, channel, reason });
}

/** An error frame; `requestId` is `""` when no client frame (or no readable one) caused it. */
export function errorFrame(code: FeedErrorCode, message: string, requestId = '', subscriptionId: string | null = null): string {
  return JSON.stringify({ type: 'error', request_id: requestId, subscription_id: subscriptionId, code, error: message });
}
