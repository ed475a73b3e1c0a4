/**
 * Margin and PnL of a subaccount at the current mark prices: the Subaccount record and one
 * Position record per open (or just closed) position. All positions are cross margin.
 * equity = cross balance + unrealized PnL; initial margin = value / leverage (capped by
 * the market's tier); maintenance = value * tier rate - tier deduction;
 * available = equity - initial margin - quote locked by resting spot bids. @internal
 */
import type { Position, Subaccount } from '../../protocol';
import { QUOTE_TOKEN } from './catalog';
import type { MarketState } from './MarketState';
import type { PositionState, SubaccountState } from './SubaccountState';
import type { World } from './World';

export interface Valuation {
  readonly record: Subaccount;
  readonly positions: Map<number, Position>;
  readonly equity: bigint;
  readonly unrealized: bigint;
}

interface PosValue {
  readonly pos: PositionState;
  readonly m: MarketState;
  readonly value: bigint;
  readonly upnl: bigint;
  readonly leverage: number;
  readonly margin: bigint;
  readonly maintenance: bigint;
}

function tierOf(m: MarketState, value: bigint): { leverage: number; rate: bigint; deduction: bigint } {
  const tiers = m.record.margin_tiers ?? [];
  let chosen = tiers[0];
  for (const t of tiers) if (BigInt(t.notional_lower_bound_quote_lots) <= value) chosen = t;
  if (!chosen) return { leverage: m.record.max_leverage ?? 1, rate: 0n, deduction: 0n };
  return { leverage: chosen.max_leverage, rate: BigInt(chosen.maintenance_margin_rate_bps), deduction: BigInt(chosen.maintenance_deduction_quote_lots) };
}

function valuePosition(sub: SubaccountState, pos: PositionState, m: MarketState): PosValue {
  const size = BigInt(Math.abs(pos.size));
  const value = size * BigInt(m.fair) * m.k;
  const upnl = pos.size > 0 ? value - pos.costBasis : pos.size < 0 ? pos.costBasis - value : 0n;
  const tier = tierOf(m, value);
  const leverage = Math.max(1, Math.min(sub.leverage, tier.leverage));
  const margin = value / BigInt(leverage);
  const mm = (value * tier.rate) / 10_000n - tier.deduction;
  return { pos, m, value, upnl, leverage, margin, maintenance: mm > 0n ? mm : 0n };
}

/** Values a subaccount at the current marks (a just-closed position keeps its last published side). */
export function valueSubaccount(w: World, sub: SubaccountState): Valuation {
  const values: PosValue[] = [];
  for (const pos of sub.positions.values()) values.push(valuePosition(sub, pos, w.perp(pos.marketId)!));
  let unrealized = 0n;
  let initial = 0n;
  let maintenance = 0n;
  for (const v of values) {
    unrealized += v.upnl;
    initial += v.margin;
    maintenance += v.maintenance;
  }
  const quote = sub.balances.get(QUOTE_TOKEN);
  const cross = quote?.total ?? 0n;
  const locked = quote?.locked ?? 0n;
  const equity = cross + unrealized;
  const available = equity - initial - locked;
  const free = cross - locked;
  const transferable = available < 0n ? 0n : available < free ? available : free > 0n ? free : 0n;
  const record: Subaccount = {
    subaccount_id: sub.id,
    status: sub.status,
    created_at_ns: sub.createdNs.toString(),
    cross_margin_balance_quote_lots: cross.toString(),
    total_isolated_margin_quote_lots: '0',
    equity_quote_lots: equity.toString(),
    available_margin_quote_lots: available.toString(),
    transferable_margin_quote_lots: transferable.toString(),
    initial_margin_requirement_quote_lots: initial.toString(),
    maintenance_margin_requirement_quote_lots: maintenance.toString(),
    delegations: sub.delegations as Subaccount['delegations'],
  };
  const buffer = equity - maintenance;
  const positions = new Map<number, Position>();
  for (const v of values) positions.set(v.pos.marketId, positionRecord(sub, v, buffer));
  return { record, positions, equity, unrealized };
}

function positionRecord(sub: SubaccountState, v: PosValue, buffer: bigint): Position {
  const { pos, m } = v;
  const previous = sub.positionRecords.get(pos.marketId);
  const side = pos.size > 0 ? 'long' : pos.size < 0 ? 'short' : (previous?.side ?? 'long');
  const rec: Position = {
    market_id: pos.marketId,
    side,
    size_base_lots: String(Math.abs(pos.size)),
    entry_price_ticks: String(pos.entryTicks),
    margin_mode: 'cross',
    leverage: v.leverage,
    position_value_quote_lots: v.value.toString(),
    unrealized_pnl_quote_lots: v.upnl.toString(),
    realized_pnl_quote_lots: pos.realized.toString(),
    roe_bps: '0',
    margin_used_token_atoms: v.margin.toString(),
    isolated_margin_quote_lots: '0',
    fees_quote_lots: pos.fees.toString(),
    funding_quote_lots: pos.funding.toString(),
  };
  if (pos.size !== 0) {
    // Cross margin: the price at which the whole account's equity meets maintenance,
    // moving this position's price alone.
    const perTick = BigInt(Math.abs(pos.size)) * m.k;
    const move = buffer / perTick;
    const liq = pos.size > 0 ? BigInt(m.fair) - move : BigInt(m.fair) + move;
    if (liq > 0n) rec.liquidation_price_ticks = liq.toString();
    if (pos.costBasis > 0n) rec.roe_bps = ((v.upnl * 10_000n * BigInt(v.leverage)) / pos.costBasis).toString();
  }
  return rec;
}
