/** Which streams a relay carries: helpers per market and per account, and the default set (what `view` shows). */
import type { ExchangeClient } from '../client';
import type { ChannelName, Market, MarketType } from '../protocol';
import type { RelayStream } from './relayOptions';

/** Channels carried per market by default: the ones `exchange-replica view` shows. */
export const DEFAULT_MARKET_CHANNELS: readonly ChannelName[] = ['book', 'marketStats', 'trades', 'fundingRates'];
/** Channels carried per account by default: the parts of `client.account()`. */
export const DEFAULT_ACCOUNT_CHANNELS: readonly ChannelName[] = ['account', 'balances', 'positions', 'orders', 'fills'];

const MARKET_SCOPED: ReadonlySet<ChannelName> = new Set(['book', 'bbo', 'marketStats', 'trades']);
const ACCOUNT_SCOPED: ReadonlySet<ChannelName> = new Set(['account', 'balances', 'positions', 'orders', 'fills']);

/**
 * The streams of one market. `fundingRates` is carried for perp markets only; candle
 * channels need an interval and are not included (give them as `{ channel, scope }`).
 */
export function marketStreams(marketType: MarketType, marketId: number, channels: readonly ChannelName[] = DEFAULT_MARKET_CHANNELS): RelayStream[] {
  const out: RelayStream[] = [];
  for (const channel of channels) {
    if (MARKET_SCOPED.has(channel)) out.push({ channel, scope: { market_id: marketId, is_perps: marketType === 'perp' } });
    else if (channel === 'fundingRates' && marketType === 'perp') out.push({ channel, scope: { market_id: marketId } });
  }
  return out;
}

/** The streams of one subaccount. */
export function accountStreams(address: string, subaccountId: number, channels: readonly ChannelName[] = DEFAULT_ACCOUNT_CHANNELS): RelayStream[] {
  return channels.filter((c) => ACCOUNT_SCOPED.has(c)).map((channel) => ({ channel, scope: { address, subaccount_id: subaccountId } }));
}

/** The first active market of a type (else the first of that type). */
export function firstMarket(markets: readonly Market[], type: MarketType): Market | undefined {
  return markets.find((m) => m.market_type === type && m.status === 'active') ?? markets.find((m) => m.market_type === type);
}

/** What `exchange-replica view` shows by default: the first active perp and spot markets. @throws the REST client's errors */
export async function defaultStreams(client: Pick<ExchangeClient, 'rest'>, channels: readonly ChannelName[] = DEFAULT_MARKET_CHANNELS): Promise<RelayStream[]> {
  const markets = (await client.rest.markets({ market_type: 'all' })).data;
  const out: RelayStream[] = [];
  for (const type of ['perp', 'spot'] as const) {
    const m = firstMarket(markets, type);
    if (m !== undefined) out.push(...marketStreams(type, m.market_id, channels));
  }
  return out;
}
