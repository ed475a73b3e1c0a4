/** The exchange's markets and tokens in the KV bucket, for consumers without REST. */
import { exactJson, parseJson } from './exactJson';
import { BUS_FORMAT_VERSION } from './formatVersion';

/** KV key of the exchange's market list, written by every relay when it starts (no channel is named `meta`). */
export const MARKETS_META_KEY = 'meta.markets';

/** The value under {@link MARKETS_META_KEY}: what consumers without REST need to label markets. */
export interface MarketsMeta {
  readonly v: typeof BUS_FORMAT_VERSION;
  /** The `data` of REST `markets` (market_type all), as the relay's REST client returned it. */
  readonly markets: readonly unknown[];
  /** The `data` of REST `tokens`, or null when the exchange does not serve it. */
  readonly tokens: readonly unknown[] | null;
  readonly relayId: string;
}

/** The KV value of the markets metadata (JSON exactly: see {@link exactJson}). @throws ExchangeReplicaError `ERR_BUS` when it holds what JSON cannot carry exactly. */
export function encodeMarketsMeta(meta: MarketsMeta): string {
  return exactJson(meta);
}

/**
 * Reads the KV value under {@link MARKETS_META_KEY}: undefined when it is of another format
 * version or holds no market list. @throws ExchangeReplicaError `ERR_BUS` when it is not JSON.
 */
export function decodeMarketsMeta(text: string): MarketsMeta | undefined {
  const meta = parseJson(text, 'markets metadata') as MarketsMeta;
  return meta.v === BUS_FORMAT_VERSION && Array.isArray(meta.markets) ? meta : undefined;
}
