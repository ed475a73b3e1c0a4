/**
 * Client frames (streaming-protocol.md section 2) in and out of text: the client writes
 * them with {@link writeClientFrame}, the server (the simulator's feed) reads them with
 * {@link parseClientFrame}, both against the schemas of frames.ts. A frame the parser
 * refuses comes back as the error the server answers with (code and message), naming the
 * key at fault. Existence of a scope's market or account is not the protocol's business:
 * the server checks it afterwards.
 */
import type * as z from 'zod/mini';
import { SCOPE_KEYS, validateScope, type Scope } from './channels';
import { CLIENT_FRAME_TYPES, ClientFrame, type FeedErrorCode, type SubscribeFrame } from './frames';
import { safeParse } from './safeParse';

/** Why a client frame was refused: the `error` frame the server answers with, and the key at fault. */
export interface ClientFrameError {
  readonly code: FeedErrorCode;
  readonly message: string;
  /** The frame's `request_id`, `""` when it has none (or is unreadable). */
  readonly requestId: string;
  /** The `subscription_id` the error frame names, if any. */
  readonly subscriptionId: string | null;
  /** The key at fault (`request_id`, `type`, `channel`, a scope key, ...); null when the frame is not a JSON object at all. */
  readonly key: string | null;
}

export type ClientFrameResult = { readonly ok: true; readonly frame: ClientFrame } | { readonly ok: false; readonly error: ClientFrameError };

function refuse(code: FeedErrorCode, message: string, key: string | null, requestId = ''): ClientFrameResult {
  return { ok: false, error: { code, message, requestId, subscriptionId: null, key } };
}

/**
 * Reads the text of one client frame. Never throws.
 *
 * Checked in this order, the first failure answered: JSON, an object, a string
 * `request_id`, a known `type`, then per type: `subscription_id` (unsubscribe); `channel`
 * (`UNKNOWN_CHANNEL` when it is a string but no channel), no key but the scope keys, the
 * scope against the channel (`INVALID_SUBSCRIPTION`) (subscribe). Everything else is
 * `INVALID_MESSAGE`.
 *
 * @example
 * parseClientFrame('{"type":"ping","request_id":"3"}') // => { ok: true, frame: { type: 'ping', request_id: '3' } }
 * parseClientFrame('{"type":"subscribe","request_id":"4","channel":"nope"}')
 * // => { ok: false, error: { code: 'UNKNOWN_CHANNEL', message: 'unknown channel "nope"', requestId: '4', subscriptionId: null, key: 'channel' } }
 */
export function parseClientFrame(text: string): ClientFrameResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return refuse('INVALID_MESSAGE', 'the frame is not valid JSON', null);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return refuse('INVALID_MESSAGE', 'the frame is not a JSON object', null);
  }
  const raw = value as Record<string, unknown>;
  if (typeof raw.request_id !== 'string') return refuse('INVALID_MESSAGE', 'the frame has no string request_id', 'request_id');
  const requestId = raw.request_id;
  const r = safeParse(ClientFrame, raw);
  if (!r.success) return explain(raw, requestId, r.error.issues);
  const frame = r.data;
  if (frame.type === 'subscribe') {
    const scope = validateScope(frame.channel, frame);
    if (!scope.ok) return refuse('INVALID_SUBSCRIPTION', scope.message, scope.key, requestId);
  }
  return { ok: true, frame };
}

/** The error of a frame the schemas refused, by the order of {@link parseClientFrame}. */
function explain(raw: Record<string, unknown>, requestId: string, issues: readonly z.core.$ZodIssue[]): ClientFrameResult {
  const at = (key: string) => issues.some((i) => i.path[0] === key);
  if (at('type')) {
    return refuse('INVALID_MESSAGE', `unknown frame type ${JSON.stringify(raw.type)} (expected one of: ${CLIENT_FRAME_TYPES.join(', ')})`, 'type', requestId);
  }
  if (at('subscription_id')) return refuse('INVALID_MESSAGE', 'an unsubscribe frame needs a string subscription_id', 'subscription_id', requestId);
  // A subscribe frame.
  const channel = raw.channel;
  if (typeof channel !== 'string') return refuse('INVALID_MESSAGE', 'a subscribe frame needs a string channel', 'channel', requestId);
  if (at('channel')) return refuse('UNKNOWN_CHANNEL', `unknown channel ${JSON.stringify(channel)}`, 'channel', requestId);
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) {
      return refuse('INVALID_SUBSCRIPTION', `${issue.keys[0]} is not a scope key (scope keys: ${SCOPE_KEYS.join(', ')})`, issue.keys[0], requestId);
    }
  }
  // Left: a scope value; the channels table words it (and may see first a key the channel does not take).
  const scope = validateScope(raw.channel as SubscribeFrame['channel'], raw);
  if (!scope.ok) return refuse('INVALID_SUBSCRIPTION', scope.message, scope.key, requestId);
  // Not reached: every schema issue is one of the above.
  const first = issues[0];
  return refuse('INVALID_MESSAGE', `the frame does not match the protocol: ${first?.message ?? 'unknown issue'}`, first?.path.map(String).join('.') || null, requestId);
}

/** The scope a (parsed) subscribe frame names: its scope keys, in the canonical order. */
export function subscribeScope(frame: SubscribeFrame): Scope {
  const scope: Record<string, unknown> = {};
  for (const key of SCOPE_KEYS) if (frame[key] !== undefined) scope[key] = frame[key];
  return scope as Scope;
}

/**
 * The text of one client frame: exactly the schema's keys, in the documented order (`type`,
 * `request_id`, then `channel` and the scope keys, or `subscription_id`).
 *
 * @example
 * writeClientFrame({ type: 'subscribe', request_id: '1', channel: 'bbo', market_id: 0, is_perps: true })
 * // => '{"type":"subscribe","request_id":"1","channel":"bbo","market_id":0,"is_perps":true}'
 */
export function writeClientFrame(frame: ClientFrame): string {
  switch (frame.type) {
    case 'subscribe':
      return JSON.stringify({ type: frame.type, request_id: frame.request_id, channel: frame.channel, ...subscribeScope(frame) });
    case 'unsubscribe':
      return JSON.stringify({ type: frame.type, request_id: frame.request_id, subscription_id: frame.subscription_id });
    case 'ping':
      return JSON.stringify({ type: frame.type, request_id: frame.request_id });
  }
}
