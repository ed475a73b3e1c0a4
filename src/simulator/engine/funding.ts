/**
 * Perp funding: a rate from the book's premium over the mark, the cumulative funding per
 * base unit, and a payment to or from every holder of a position (longs pay a positive
 * rate). Each settlement is a FundingRate record and one FundingPayment per holder. @internal
 */
import type { FundingRate } from '../../protocol';
import { QUOTE_TOKEN } from './catalog';
import type { MarketState } from './MarketState';
import type { World } from './World';

/** Funding rates are clamped to +-0.05% (500 hundredths of a basis point) per interval. */
const MAX_RATE = 500;

/** The rate the book implies now: the mid's premium over the mark, spread over 8 intervals. */
export function impliedFundingRate(m: MarketState): number {
  const bid = m.book.bids.best();
  const ask = m.book.asks.best();
  if (!bid || !ask) return 0;
  const premium = ((bid.price + ask.price) / 2 - m.fair) / m.fair;
  return Math.max(-MAX_RATE, Math.min(MAX_RATE, Math.round((premium * 1e6) / 8)));
}

/** Builds a FundingRate record and advances the market's cumulative funding. */
export function nextFundingRecord(m: MarketState, rate: number, timestampNs: bigint): FundingRate {
  m.fundingSeq += 1;
  m.longCumulativeFunding += (BigInt(m.fair) * m.spec.quoteLotsPerUnitPerTick * BigInt(rate)) / 1_000_000n;
  const rec: FundingRate = {
    timestamp_ns: timestampNs.toString(),
    sequence: String(m.fundingSeq),
    market_id: m.spec.id,
    funding_rate_100th_bps: rate,
    long_cumulative_funding_quote_lots: m.longCumulativeFunding.toString(),
    short_cumulative_funding_quote_lots: (-m.longCumulativeFunding).toString(),
  };
  m.fundingRates.push(rec);
  return rec;
}

/** Settles one funding interval of a perp market at `rate` (the engine event's time). */
export function settleFunding(w: World, m: MarketState, rate: number): void {
  m.fundingRate = rate;
  m.newFunding = nextFundingRecord(m, rate, w.eventNs);
  m.eventsSinceFunding = 0;
  m.statsDirty = true;
  w.touchMarket(m);
  for (const sub of w.holders.get(m.spec.id) ?? []) {
    const pos = sub.positions.get(m.spec.id);
    if (!pos || pos.size === 0) continue;
    const notional = m.notional(m.fair, Math.abs(pos.size));
    const paid = (notional * BigInt(rate)) / 1_000_000n;
    const payment = pos.size > 0 ? -paid : paid;
    pos.funding += payment;
    sub.realizedTotal += payment;
    sub.adjust(QUOTE_TOKEN, payment);
    sub.fundingSeq += 1;
    sub.fundingPayments.push({
      sequence: String(sub.fundingSeq),
      timestamp_ns: w.eventNs.toString(),
      market_id: m.spec.id,
      funding_rate_100th_bps: rate,
      position_size_base_lots: String(Math.abs(pos.size)),
      payment_quote_lots: payment.toString(),
    });
    w.touchSub(sub);
  }
}
