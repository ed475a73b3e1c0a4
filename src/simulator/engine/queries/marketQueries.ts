/**
 * Market data operations: candles, mark candles, markets (versioned and unversioned),
 * statistics, BBO, book, resting orders, trades and funding rates. Candle windows are
 * half-open [start_timestamp, end_timestamp) on the bucket start; with more buckets in the
 * window than `count_back`, the NEWEST `count_back` are returned, oldest first (an
 * assumption: the API document only says "at most count_back rows"). Trades and funding
 * rates are newest first. @internal
 */
import type { BookOrder, MarketType, ParamValues, Resolution, Side } from '../../../protocol';
import { legacyMarketRecord } from '../catalog';
import type { EngineOrder } from '../Book';
import { decodeCursor, encodeCursor } from '../cursor';
import { notFound } from '../QueryError';
import type { MarketState } from '../MarketState';
import type { World } from '../World';
import { marketOf, marketTypeOf, nsToMs, num, perpOf, seqOf, str, type QueryHandler } from './common';

const scopeOf = (m: MarketState) => ({ market_id: m.spec.id, is_perps: m.isPerp });

/** Markets matching a `market_type` filter (`all`, `spot`, `perp`) and optional id; 404 when the id matches none. */
function filteredMarkets(w: World, p: ParamValues): MarketState[] {
  const filter = str(p, 'market_type')!;
  const id = num(p, 'market_id');
  const out = w.markets.filter((m) => (filter === 'all' || m.spec.type === filter) && (id === undefined || m.spec.id === id));
  if (id !== undefined && out.length === 0) throw notFound(`unknown ${filter === 'all' ? '' : `${filter} `}market ${id}`);
  return out;
}

function legacy(m: MarketState) {
  const s = m.stats;
  return legacyMarketRecord(m.record, {
    markPriceTicks: s.mark_price_ticks === undefined ? undefined : Number(s.mark_price_ticks),
    openInterestLots: s.open_interest_base_lots === undefined ? undefined : Number(s.open_interest_base_lots),
    predictedFunding100thBps: s.predicted_funding_rate_100th_bps,
    volume24hQuoteLots: BigInt(s.volume_24h_quote_lots),
  });
}

function bookOrder(o: EngineOrder): BookOrder {
  return {
    order_id: o.id,
    client_order_id: o.clientOrderId.toString(),
    address: o.owner.address,
    subaccount_id: o.owner.id,
    side: o.side,
    price_ticks: String(o.price),
    remaining_size_base_lots: String(o.remaining),
    original_size_base_lots: String(o.original),
  };
}

/**
 * Resting orders in book order (bids best first, then asks best first; time priority within
 * a level) after the keyset position (side, price, placement number).
 */
function bookOrders(m: MarketState, sides: Side[], after: { s: number; p: number; q: number } | undefined, limit: number): { rows: EngineOrder[]; more: boolean } {
  const rows: EngineOrder[] = [];
  for (const side of sides) {
    const sideIndex = side === 'bid' ? 0 : 1;
    if (after && sideIndex < after.s) continue;
    const book = m.book.side(side);
    const resume = after && sideIndex === after.s ? after : undefined;
    for (let i = resume ? book.indexOf(resume.p) : 0; i < book.prices.length; i++) {
      const level = book.levels.get(book.prices[i]!)!;
      for (const o of level.orders) {
        if (resume && level.price === resume.p && o.seq <= resume.q) continue;
        if (rows.length === limit) return { rows, more: true };
        rows.push(o);
      }
    }
  }
  return { rows, more: false };
}

export const marketQueries = {
  candles: ({ w }, p) => {
    const m = marketOf(w, marketTypeOf(p)!, num(p, 'market_id')!);
    const r = str(p, 'resolution') as Resolution;
    return { data: m.candleWindow(r, num(p, 'start_timestamp')!, num(p, 'end_timestamp')!, num(p, 'count_back')!), sequence: seqOf(w, 'candles', { ...scopeOf(m), interval: r }) };
  },
  markCandles: ({ w }, p) => {
    const m = perpOf(w, num(p, 'market_id')!);
    const r = str(p, 'resolution') as Resolution;
    return { data: m.markCandleWindow(r, num(p, 'start_timestamp')!, num(p, 'end_timestamp')!, num(p, 'count_back')!), sequence: seqOf(w, 'markCandles', { market_id: m.spec.id, interval: r }) };
  },
  markets: ({ w }, p) => ({ data: filteredMarkets(w, p).map((m) => m.record) }),
  marketStats: ({ w }, p) => {
    const ms = filteredMarkets(w, p);
    // One market: its stream's seq. Several: the sum of their seqs (it grows whenever any of them changes).
    return { data: ms.map((m) => m.stats), sequence: ms.reduce((s, m) => s + seqOf(w, 'marketStats', scopeOf(m)), 0n) };
  },
  bbo: ({ w }, p) => {
    const m = marketOf(w, marketTypeOf(p)!, num(p, 'market_id')!);
    return { data: m.bbo, sequence: seqOf(w, 'bbo', scopeOf(m)) };
  },
  orderBook: ({ w }, p) => {
    const m = marketOf(w, marketTypeOf(p)!, num(p, 'market_id')!);
    const depth = num(p, 'depth')!;
    const level = (l: { price: number; total: number }) => ({ price_ticks: String(l.price), size_base_lots: String(l.total) });
    return { data: { bids: m.book.bids.top(depth).map(level), asks: m.book.asks.top(depth).map(level) }, sequence: seqOf(w, 'book', scopeOf(m)) };
  },
  orderBookOrders: ({ w }, p) => {
    const m = marketOf(w, marketTypeOf(p)!, num(p, 'market_id')!);
    const filter = str(p, 'side') ?? 'all';
    const sides: Side[] = filter === 'all' ? ['bid', 'ask'] : [filter as Side];
    const raw = str(p, 'cursor');
    const after = raw === undefined ? undefined : decodeCursor('orderBookOrders', raw, { s: 'number', p: 'number', q: 'number' });
    const { rows, more } = bookOrders(m, sides, after, num(p, 'limit')!);
    const last = rows[rows.length - 1];
    const nextCursor = more && last ? encodeCursor('orderBookOrders', { s: last.side === 'bid' ? 0 : 1, p: last.price, q: last.seq }) : null;
    return { data: rows.map(bookOrder), nextCursor };
  },
  trades: ({ w }, p) => {
    const m = marketOf(w, marketTypeOf(p)!, num(p, 'market_id')!);
    const raw = str(p, 'cursor');
    const before = raw === undefined ? undefined : decodeCursor('trades', raw, { s: 'number' }).s;
    const page = m.trades.pageNewestFirst(before, num(p, 'limit')!);
    return { data: page.rows, nextCursor: page.next === undefined ? null : encodeCursor('trades', { s: page.next }), sequence: seqOf(w, 'trades', scopeOf(m)) };
  },
  fundingRates: ({ w }, p) => {
    const m = perpOf(w, num(p, 'market_id')!);
    const start = num(p, 'start_timestamp')!;
    const end = num(p, 'end_timestamp')!;
    const raw = str(p, 'cursor');
    const before = raw === undefined ? undefined : decodeCursor('fundingRates', raw, { s: 'number' }).s;
    const page = m.fundingRates.pageNewestFirst(before, num(p, 'limit')!, (f) => {
      const ms = nsToMs(f.timestamp_ns);
      return ms >= start && ms < end;
    });
    return { data: page.rows, nextCursor: page.next === undefined ? null : encodeCursor('fundingRates', { s: page.next }), sequence: seqOf(w, 'fundingRates', { market_id: m.spec.id }) };
  },
  marketsUnversioned: ({ w }, p) => {
    const type = (str(p, 'market_type') ?? 'perp') as MarketType;
    return { data: w.markets.filter((m) => m.spec.type === type).map(legacy) };
  },
  marketUnversioned: ({ w }, p) => ({ data: legacy(marketOf(w, (str(p, 'market_type') ?? 'perp') as MarketType, num(p, 'market_id')!)) }),
} satisfies Record<string, QueryHandler>;
