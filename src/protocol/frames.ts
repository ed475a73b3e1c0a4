/**
 * Feed frames (streaming-protocol.md sections 2 and 3) and feed error codes
 * (exchange-api-v1.md section 7.2).
 */
import * as z from 'zod/mini';
import { CHANNEL_NAMES } from './channelNames';
import { SCOPE_SCHEMAS } from './channels';
import { TimestampNs, Uint64 } from './scalars';

/** The path of the feed on the REST host (streaming-protocol.md section 7). */
export const FEED_PATH = '/ws';

/** Server idle timeout: a client silent this long is closed with HEARTBEAT_TIMEOUT. */
export const SERVER_IDLE_TIMEOUT_MS = 60_000;

export const FEED_ERROR_CODES = ['INVALID_MESSAGE', 'UNKNOWN_CHANNEL', 'INVALID_SUBSCRIPTION', 'UNKNOWN_SUBSCRIPTION', 'HEARTBEAT_TIMEOUT', 'FEED_UNAVAILABLE'] as const;
export type FeedErrorCode = (typeof FEED_ERROR_CODES)[number];

/** Codes after which the server closes the connection. */
export const CLOSING_FEED_ERROR_CODES: readonly FeedErrorCode[] = ['HEARTBEAT_TIMEOUT', 'FEED_UNAVAILABLE'];

export const RESYNC_REASONS = ['gap', 'lag'] as const;
export type ResyncReason = (typeof RESYNC_REASONS)[number];

// ---- client frames -------------------------------------------------------
// Read and written by clientFrameCodec.ts (`parseClientFrame`, `writeClientFrame`).

export const CLIENT_FRAME_TYPES = ['subscribe', 'unsubscribe', 'ping'] as const;
export type ClientFrameType = (typeof CLIENT_FRAME_TYPES)[number];

/**
 * Subscribe: a channel and its scope, no other key. Which scope keys a channel requires and
 * accepts is the channels table's (`validateScope`); each value here is the key's schema.
 */
export const SubscribeFrame = z.strictObject({
  type: z.literal('subscribe'),
  request_id: z.string(),
  channel: z.enum(CHANNEL_NAMES),
  market_id: z.optional(SCOPE_SCHEMAS.market_id),
  is_perps: z.optional(SCOPE_SCHEMAS.is_perps),
  interval: z.optional(SCOPE_SCHEMAS.interval),
  address: z.optional(SCOPE_SCHEMAS.address),
  subaccount_id: z.optional(SCOPE_SCHEMAS.subaccount_id),
});
/** Unsubscribe; other keys are ignored. */
export const UnsubscribeFrame = z.object({ type: z.literal('unsubscribe'), request_id: z.string(), subscription_id: z.string() });
/** Ping; other keys are ignored. */
export const PingFrame = z.object({ type: z.literal('ping'), request_id: z.string() });

export const ClientFrame = z.discriminatedUnion('type', [SubscribeFrame, UnsubscribeFrame, PingFrame]);
export type SubscribeFrame = z.infer<typeof SubscribeFrame>;
export type UnsubscribeFrame = z.infer<typeof UnsubscribeFrame>;
export type PingFrame = z.infer<typeof PingFrame>;
export type ClientFrame = z.infer<typeof ClientFrame>;

// ---- server frames -------------------------------------------------------

export const SubscribedFrame = z.strictObject({ type: z.literal('subscribed'), request_id: z.string(), subscription_id: z.string(), channel: z.string() });
export const UnsubscribedFrame = z.strictObject({ type: z.literal('unsubscribed'), request_id: z.string(), subscription_id: z.string() });
export const PongFrame = z.strictObject({ type: z.literal('pong'), request_id: z.string(), timestamp_ns: TimestampNs });
/** `data` is checked against the channel's schema by the router, not here. */
export const UpdateFrame = z.strictObject({ type: z.literal('update'), subscription_id: z.string(), channel: z.string(), seq: Uint64, timestamp_ns: TimestampNs, data: z.unknown() });
export const ResyncRequiredFrame = z.strictObject({ type: z.literal('resync_required'), subscription_id: z.string(), channel: z.string(), reason: z.enum(RESYNC_REASONS) });
export const ErrorFrame = z.strictObject({ type: z.literal('error'), request_id: z.string(), subscription_id: z.nullable(z.string()), code: z.string(), error: z.string() });

export const ServerFrame = z.discriminatedUnion('type', [SubscribedFrame, UnsubscribedFrame, PongFrame, UpdateFrame, ResyncRequiredFrame, ErrorFrame]);
export type SubscribedFrame = z.infer<typeof SubscribedFrame>;
export type UnsubscribedFrame = z.infer<typeof UnsubscribedFrame>;
export type PongFrame = z.infer<typeof PongFrame>;
export type UpdateFrame<D = unknown> = Omit<z.infer<typeof UpdateFrame>, 'data'> & { data: D };
export type ResyncRequiredFrame = z.infer<typeof ResyncRequiredFrame>;
export type ErrorFrame = z.infer<typeof ErrorFrame>;
export type ServerFrame = SubscribedFrame | UnsubscribedFrame | PongFrame | UpdateFrame | ResyncRequiredFrame | ErrorFrame;
