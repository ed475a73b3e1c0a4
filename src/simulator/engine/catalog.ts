/**
 * The simulated exchange's listings: tokens and markets with realistic metadata, plus the
 * per-market knobs of the order flow. Every quote lot is one USDC atom, and every market's
 * `quote_lots_per_base_unit_per_tick` is a multiple of `base_lots_per_base_unit`, so the
 * notional of one lot at one tick (`notionalPerTickLot`) is an exact integer. @internal
 */
import type { LegacyMarket, MarginTier, Market, MarketStatus, MarketType, Token } from '../../protocol';

export interface TokenSpec {
  readonly id: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly totalSupplyAtoms: bigint;
}

export const TOKENS: readonly TokenSpec[] = [
  { id: 'USDC', symbol: 'USDC', decimals: 6, totalSupplyAtoms: 40_000_000_000_000_000n },
  { id: 'SOL', symbol: 'SOL', decimals: 9, totalSupplyAtoms: 600_000_000_000_000_000n },
  { id: 'BTC', symbol: 'BTC', decimals: 8, totalSupplyAtoms: 2_100_000_000_000_000n },
  { id: 'ETH', symbol: 'ETH', decimals: 18, totalSupplyAtoms: 9_000_000_000_000_000_000n },
];

export const QUOTE_TOKEN = 'USDC';

export function tokenRecord(t: TokenSpec): Token {
  return { token_id: t.id, symbol: t.symbol, decimals: t.decimals, total_supply_atoms: t.totalSupplyAtoms.toString() };
}

/** Static description of one market and how the order flow trades it. */
export interface MarketSpec {
  readonly type: MarketType;
  readonly id: number;
  readonly symbol: string;
  readonly base: string;
  readonly status: MarketStatus;
  readonly baseAtomsPerLot: bigint;
  readonly baseLotsPerUnit: bigint;
  readonly quoteLotsPerUnitPerTick: bigint;
  readonly makerFee100thBps: number;
  readonly takerFee100thBps: number;
  readonly minSizeLots: number;
  readonly maxLeverage?: number;
  /** Margin tiers: [lower bound in quote lots, max leverage, maintenance rate bps]. */
  readonly tiers?: readonly (readonly [bigint, number, number])[];
  // order-flow knobs
  readonly initialPriceTicks: number;
  /** Market-maker ladder depth per side (levels). */
  readonly ladderLevels: number;
  readonly halfSpreadTicks: number;
  readonly mmSizeLots: readonly [number, number];
  readonly traderSizeLots: readonly [number, number];
  /** Largest position (perps) or inventory swing (spot) a flow trader takes, in lots. */
  readonly traderMaxLots: number;
}

export const MARKET_SPECS: readonly MarketSpec[] = [
  {
    type: 'perp', id: 0, symbol: 'BTC-PERP', base: 'BTC', status: 'active', baseAtomsPerLot: 10_000n, baseLotsPerUnit: 10_000n,
    quoteLotsPerUnitPerTick: 1_000_000n, makerFee100thBps: 200, takerFee100thBps: 500, minSizeLots: 1, maxLeverage: 50,
    tiers: [[0n, 50, 100], [1_000_000_000_000n, 20, 250], [5_000_000_000_000n, 10, 500]],
    initialPriceTicks: 65_000, ladderLevels: 620, halfSpreadTicks: 1, mmSizeLots: [20, 400], traderSizeLots: [1, 60], traderMaxLots: 600,
  },
  {
    type: 'perp', id: 1, symbol: 'ETH-PERP', base: 'ETH', status: 'active', baseAtomsPerLot: 1_000_000_000_000_000n, baseLotsPerUnit: 1_000n,
    quoteLotsPerUnitPerTick: 10_000n, makerFee100thBps: 200, takerFee100thBps: 500, minSizeLots: 1, maxLeverage: 25,
    tiers: [[0n, 25, 200], [500_000_000_000n, 10, 500]],
    initialPriceTicks: 300_000, ladderLevels: 220, halfSpreadTicks: 2, mmSizeLots: [10, 300], traderSizeLots: [1, 40], traderMaxLots: 500,
  },
  {
    type: 'perp', id: 2, symbol: 'SOL-PERP', base: 'SOL', status: 'paused', baseAtomsPerLot: 10_000_000n, baseLotsPerUnit: 100n,
    quoteLotsPerUnitPerTick: 1_000n, makerFee100thBps: 200, takerFee100thBps: 500, minSizeLots: 1, maxLeverage: 20,
    tiers: [[0n, 20, 250], [250_000_000_000n, 5, 1000]],
    initialPriceTicks: 150_000, ladderLevels: 25, halfSpreadTicks: 5, mmSizeLots: [5, 100], traderSizeLots: [1, 20], traderMaxLots: 200,
  },
  {
    type: 'spot', id: 3, symbol: 'SOL/USDC', base: 'SOL', status: 'active', baseAtomsPerLot: 1_000_000n, baseLotsPerUnit: 1_000n,
    quoteLotsPerUnitPerTick: 1_000n, makerFee100thBps: 0, takerFee100thBps: 400, minSizeLots: 10,
    initialPriceTicks: 150_000, ladderLevels: 320, halfSpreadTicks: 3, mmSizeLots: [100, 5_000], traderSizeLots: [10, 800], traderMaxLots: 20_000,
  },
  {
    type: 'spot', id: 4, symbol: 'BTC/USDC', base: 'BTC', status: 'active', baseAtomsPerLot: 1_000n, baseLotsPerUnit: 100_000n,
    quoteLotsPerUnitPerTick: 100_000n, makerFee100thBps: 100, takerFee100thBps: 400, minSizeLots: 10,
    initialPriceTicks: 650_000, ladderLevels: 210, halfSpreadTicks: 5, mmSizeLots: [100, 3_000], traderSizeLots: [10, 500], traderMaxLots: 10_000,
  },
];

/** Quote lots of one base lot at one tick. */
export function notionalPerTickLot(spec: MarketSpec): bigint {
  return spec.quoteLotsPerUnitPerTick / spec.baseLotsPerUnit;
}

function marginTiers(spec: MarketSpec): MarginTier[] {
  const out: MarginTier[] = [];
  let deduction = 0n;
  let prevRate = 0;
  spec.tiers!.forEach(([lower, lev, rate], tier) => {
    // Deductions keep the maintenance requirement continuous across tier bounds.
    deduction += (lower * BigInt(rate - prevRate)) / 10_000n;
    prevRate = rate;
    out.push({ tier, notional_lower_bound_quote_lots: lower.toString(), max_leverage: lev, maintenance_margin_rate_bps: rate, maintenance_deduction_quote_lots: deduction.toString() });
  });
  return out;
}

/** The protocol `Market` record of a spec. */
export function marketRecord(spec: MarketSpec, feeRecipient: string): Market {
  const base = TOKENS.find((t) => t.id === spec.base)!;
  const quote = TOKENS.find((t) => t.id === QUOTE_TOKEN)!;
  const m: Market = {
    market_type: spec.type,
    market_id: spec.id,
    symbol: spec.symbol,
    base_token: base.symbol,
    quote_token: quote.symbol,
    quote_token_id: quote.id,
    base_decimals: base.decimals,
    quote_decimals: quote.decimals,
    base_atoms_per_base_lot: spec.baseAtomsPerLot.toString(),
    quote_atoms_per_quote_lot: '1',
    base_lots_per_base_unit: spec.baseLotsPerUnit.toString(),
    quote_lots_per_quote_unit: (10n ** BigInt(quote.decimals)).toString(),
    quote_lots_per_base_unit_per_tick: spec.quoteLotsPerUnitPerTick.toString(),
    default_maker_fee_100th_bps: spec.makerFee100thBps,
    default_taker_fee_100th_bps: spec.takerFee100thBps,
    min_size_base_lots: String(spec.minSizeLots),
    min_order_notional_quote_lots: '1000000',
    max_market_order_value_quote_lots: '1000000000000',
    max_limit_order_value_quote_lots: '5000000000000',
    fee_recipient: feeRecipient,
    status: spec.status,
  };
  if (spec.type === 'perp') {
    m.liquidation_fee_100th_bps = 10_000;
    m.max_leverage = spec.maxLeverage!;
    m.oracle_id = `oracle:${spec.base}/USD`;
    m.margin_tiers = marginTiers(spec);
  }
  return m;
}

/** Live values the unversioned market object carries. */
export interface LegacyLive {
  readonly markPriceTicks?: number;
  readonly openInterestLots?: number;
  readonly predictedFunding100thBps?: number;
  readonly volume24hQuoteLots: bigint;
}

/** The unversioned `/markets` object (exchange-api-v1.md 2.4) of a market. Fees are fractions. */
export function legacyMarketRecord(m: Market, live: LegacyLive): LegacyMarket {
  const out: LegacyMarket = {
    market_type: m.market_type,
    market_id: m.market_id,
    symbol: m.symbol,
    base_token: m.base_token,
    quote_token: m.quote_token,
    quote_token_id: m.quote_token_id!,
    default_maker_fee: m.default_maker_fee_100th_bps / 1e6,
    default_taker_fee: m.default_taker_fee_100th_bps / 1e6,
    tick_size: m.quote_lots_per_base_unit_per_tick,
    base_decimals: m.base_decimals,
    quote_decimals: m.quote_decimals,
    min_base_amount: m.min_size_base_lots,
    min_order_notional: m.min_order_notional_quote_lots,
    max_market_order_value: m.max_market_order_value_quote_lots!,
    max_limit_order_value: m.max_limit_order_value_quote_lots!,
    fee_recipient: m.fee_recipient!,
    volume_24h_quote_atoms: (live.volume24hQuoteLots * BigInt(m.quote_atoms_per_quote_lot)).toString(),
  };
  if (m.market_type === 'perp') {
    out.liquidation_fee = m.liquidation_fee_100th_bps! / 1e6;
    out.max_leverage = m.max_leverage!;
    out.margin_tiers = m.margin_tiers!.map((t) => ({ notional_lower_bound: t.notional_lower_bound_quote_lots, max_leverage: t.max_leverage, maintenance_margin_rate_bps: t.maintenance_margin_rate_bps }));
    out.oracle_id = m.oracle_id!;
    if (live.markPriceTicks !== undefined) {
      out.mark_price = String(live.markPriceTicks);
      out.oracle_price = String(live.markPriceTicks);
    }
    out.open_interest = String(live.openInterestLots ?? 0);
    if (live.predictedFunding100thBps !== undefined) out.predicted_funding_rate = live.predictedFunding100thBps;
  }
  return out;
}
