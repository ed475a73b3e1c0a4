/**
 * The parameters of the client's replica methods use the API document's names
 * (`market_type`, `market_id`, `resolution`, `address`, `subaccount_id`); this maps them to
 * feed scopes (`is_perps`, `interval`). @internal
 */
import { InvalidParameterError } from '../errors';
import { OPERATIONS, validateParams, type ChannelName, type MarketType, type ParamSpecs, type Resolution, type Scope } from '../protocol';

export interface MarketParams {
  readonly market_type: MarketType;
  readonly market_id: number;
}
export interface CandleParams extends MarketParams {
  readonly resolution: Resolution;
}
export interface PerpCandleParams {
  readonly market_id: number;
  readonly resolution: Resolution;
}
export interface PerpMarketParams {
  readonly market_id: number;
}
export interface AccountParams {
  readonly address: string;
  readonly subaccount_id: number;
}

const P = OPERATIONS;
const SPECS = {
  market: { market_type: P.bbo.params.market_type, market_id: P.bbo.params.market_id },
  candle: { market_type: P.candles.params.market_type, market_id: P.candles.params.market_id, resolution: P.candles.params.resolution },
  perpCandle: { market_id: P.markCandles.params.market_id, resolution: P.markCandles.params.resolution },
  perp: { market_id: P.fundingRates.params.market_id },
  account: { address: P.balances.params.address, subaccount_id: P.balances.params.subaccount_id },
} satisfies Record<string, ParamSpecs>;

function check(channel: ChannelName, specs: ParamSpecs, params: unknown): Record<string, string | number> {
  const r = validateParams(specs, [], params);
  if (!r.ok) throw new InvalidParameterError(`${channel}: ${r.issue.message}`, { param: r.issue.param, channel });
  for (const name of Object.keys(specs)) {
    if (r.value[name] === undefined) throw new InvalidParameterError(`${channel}: missing parameter '${name}'`, { param: name, channel });
  }
  return r.value;
}

/** The feed scope of a client call, after checking its parameters. */
export function scopeOf(channel: ChannelName, params: unknown): Scope {
  switch (channel) {
    case 'book':
    case 'bbo':
    case 'trades':
    case 'marketStats': {
      const v = check(channel, SPECS.market, params);
      return { market_id: v.market_id as number, is_perps: v.market_type === 'perp' };
    }
    case 'candles': {
      const v = check(channel, SPECS.candle, params);
      return { market_id: v.market_id as number, is_perps: v.market_type === 'perp', interval: v.resolution as Resolution };
    }
    case 'markCandles': {
      const v = check(channel, SPECS.perpCandle, params);
      return { market_id: v.market_id as number, interval: v.resolution as Resolution };
    }
    case 'fundingRates': {
      const v = check(channel, SPECS.perp, params);
      return { market_id: v.market_id as number };
    }
    case 'account':
    case 'balances':
    case 'positions':
    case 'orders':
    case 'fills':
      return accountScopeOf(params, channel);
  }
}

/** The scope of an account channel (the same for all five), after checking the parameters. */
export function accountScopeOf(params: unknown, channel: ChannelName = 'account'): AccountParams {
  const v = check(channel, SPECS.account, params);
  return { address: v.address as string, subaccount_id: v.subaccount_id as number };
}
