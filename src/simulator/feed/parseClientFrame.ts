/**
 * Reads one client frame (streaming-protocol.md section 2) into a command, or into the
 * error the server answers with. Existence of the scope's market or account is checked
 * later, by the feed's ScopeChecker. @internal
 */
import { CLIENT_FRAME_TYPES, isChannelName, SCOPE_KEYS, validateScope, type ChannelName, type FeedErrorCode, type Scope } from '../../protocol';

export type ParsedClientFrame =
  | { readonly kind: 'subscribe'; readonly requestId: string; readonly channel: ChannelName; readonly scope: Scope }
  | { readonly kind: 'unsubscribe'; readonly requestId: string; readonly subscriptionId: string }
  | { readonly kind: 'ping'; readonly requestId: string }
  | { readonly kind: 'error'; readonly requestId: string; readonly code: FeedErrorCode; readonly message: string; readonly subscriptionId: string | null };

/** Keys a subscribe frame may carry besides the scope keys. */
const SUBSCRIBE_FRAME_KEYS: readonly string[] = ['type', 'request_id', 'channel'];

function fail(code: FeedErrorCode, message: string, requestId = '', subscriptionId: string | null = null): ParsedClientFrame {
  return { kind: 'error', requestId, code, message, subscriptionId };
}

/** Parses the text of one client frame. Never throws. */
export function parseClientFrame(text: string): ParsedClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('INVALID_MESSAGE', 'the frame is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('INVALID_MESSAGE', 'the frame is not a JSON object');
  }
  const frame = value as Record<string, unknown>;
  if (typeof frame.request_id !== 'string') {
    return fail('INVALID_MESSAGE', 'the frame has no string request_id');
  }
  const requestId = frame.request_id;
  switch (frame.type) {
    case 'ping':
      return { kind: 'ping', requestId };
    case 'unsubscribe':
      if (typeof frame.subscription_id !== 'string') {
        return fail('INVALID_MESSAGE', 'an unsubscribe frame needs a string subscription_id', requestId);
      }
      return { kind: 'unsubscribe', requestId, subscriptionId: frame.subscription_id };
    case 'subscribe':
      return parseSubscribe(frame, requestId);
    default:
      return fail('INVALID_MESSAGE', `unknown frame type ${JSON.stringify(frame.type)} (expected one of: ${CLIENT_FRAME_TYPES.join(', ')})`, requestId);
  }
}

function parseSubscribe(frame: Record<string, unknown>, requestId: string): ParsedClientFrame {
  const channel = frame.channel;
  if (typeof channel !== 'string') {
    return fail('INVALID_MESSAGE', 'a subscribe frame needs a string channel', requestId);
  }
  if (!isChannelName(channel)) {
    return fail('UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(channel)}`, requestId);
  }
  for (const key of Object.keys(frame)) {
    if (!SUBSCRIBE_FRAME_KEYS.includes(key) && !(SCOPE_KEYS as readonly string[]).includes(key)) {
      return fail('INVALID_SUBSCRIPTION', `${key} is not a scope key (scope keys: ${SCOPE_KEYS.join(', ')})`, requestId);
    }
  }
  const result = validateScope(channel, frame);
  if (!result.ok) return fail('INVALID_SUBSCRIPTION', result.message, requestId);
  return { kind: 'subscribe', requestId, channel, scope: result.scope };
}
