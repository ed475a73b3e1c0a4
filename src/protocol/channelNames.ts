/** Names of the feed's channels (streaming-protocol.md section 4). */
export const MARKET_CHANNELS = ['book', 'bbo', 'trades', 'marketStats', 'candles', 'markCandles', 'fundingRates'] as const;
export const ACCOUNT_CHANNELS = ['account', 'balances', 'positions', 'orders', 'fills'] as const;
export const CHANNEL_NAMES = [...MARKET_CHANNELS, ...ACCOUNT_CHANNELS] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

const NAMES: readonly string[] = CHANNEL_NAMES;

export function isChannelName(s: unknown): s is ChannelName {
  return typeof s === 'string' && NAMES.includes(s);
}
