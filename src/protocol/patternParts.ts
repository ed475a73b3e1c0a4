/**
 * The pieces the whole-frame patterns are built from (fastDecodeShapes.ts for the hot
 * channels, layoutPatterns.ts for the layout channels): one spelling of each value shape and
 * of the update envelope, so the two pattern sets accept the same texts for the same shapes.
 * @internal
 */
import { DATA_TOKEN, TIMESTAMP_TOKEN, UPDATE_HEAD } from './hotFrameLayout';

export const UINT64_DIGITS = '\\d{1,20}';
export const UINT64 = `"${UINT64_DIGITS}"`;
export const BOOLEAN = '(?:true|false)';
/** JSON strings may hold any character but `"`, `\` (escapes go to the fallback) and controls. */
export const PLAIN_STRING_BODY = '[^"\\\\\\x00-\\x1f]*';

/** A constant token as a pattern. */
export const literal = (token: string): string => token.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** A JSON array of `item`s, possibly empty. */
export const arrayOf = (item: string): string => `\\[(?:${item}(?:,${item})*)?\\]`;

/**
 * An update frame's envelope up to its `data` value, for the channel whose token
 * (`channelToken(channel)`) is given. The tokens hold the quotes of the subscription id and of
 * the Uint64 values.
 */
export const envelopePattern = (channelToken: string): string =>
  `^${literal(UPDATE_HEAD)}${PLAIN_STRING_BODY}${literal(channelToken)}${UINT64_DIGITS}${literal(TIMESTAMP_TOKEN)}${UINT64_DIGITS}${literal(DATA_TOKEN)}`;
