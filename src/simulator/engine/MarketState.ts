/**
 * One market's runtime state: its book, trade log, candles, mark candles, 24h window,
 * funding, the records last published for it (what REST serves) and what changed in the
 * current engine event (what gets published next). @internal
 */
import { RESOLUTIONS, type Bbo, type FundingRate, type LastCandle, type Market, type MarkCandle, type MarketStats, type Resolution, type Side, type Trade } from '../../protocol';
import { Book } from './Book';
import { seriesPerResolution, type Bucket } from './BucketSeries';
import { notionalPerTickLot, type MarketSpec } from './catalog';
import { RollingWindow } from './RollingWindow';
import { SeqLog } from './SeqLog';

interface CandleBucket extends Bucket {
  open: number;
  high: number;
  low: number;
  close: number;
  base: number;
  quote: bigint;
  trades: number;
}

interface MarkBucket extends Bucket {
  open: number;
  high: number;
  low: number;
  close: number;
  samples: number;
}

/** Retention bounds per market. */
export const MARKET_RETENTION = { trades: 10_000, candles: 1_500, fundingRates: 5_000 } as const;

export class MarketState {
  readonly book = new Book();
  readonly k: bigint;
  readonly isPerp: boolean;
  /** `type:id`; ids are unique across types, the type keeps keys readable. */
  readonly key: string;
  readonly trades = new SeqLog<Trade>((t) => Number(t.sequence), MARKET_RETENTION.trades);
  readonly candles = seriesPerResolution<CandleBucket>(MARKET_RETENTION.candles);
  readonly markCandles = seriesPerResolution<MarkBucket>(MARKET_RETENTION.candles);
  readonly window = new RollingWindow();
  readonly fundingRates = new SeqLog<FundingRate>((f) => Number(f.sequence), MARKET_RETENTION.fundingRates);
  tradeSeq = 0;
  fundingSeq = 0;
  /** Hidden fair value the order flow quotes around; the oracle and mark price of perps. */
  fair: number;
  lastPrice: number | undefined;
  openInterest = 0;
  fundingRate = 0;
  predictedFundingRate = 0;
  longCumulativeFunding = 0n;
  /** Market events since the last funding rate. */
  eventsSinceFunding = 0;

  // ---- records as last published ----
  bbo: Bbo = { bid: null, ask: null };
  stats!: MarketStats;

  // ---- changes of the current engine event ----
  readonly bidChanges = new Map<number, number>();
  readonly askChanges = new Map<number, number>();
  readonly newTrades: Trade[] = [];
  candlesChanged = false;
  markSampled = false;
  statsDirty = false;
  newFunding: FundingRate | undefined;

  /** Level listener handed to the book: records each changed level's new size. */
  readonly onLevel = (side: Side, price: number, size: number): void => {
    (side === 'bid' ? this.bidChanges : this.askChanges).set(price, size);
  };

  constructor(
    readonly spec: MarketSpec,
    readonly record: Market,
  ) {
    this.k = notionalPerTickLot(spec);
    this.isPerp = spec.type === 'perp';
    this.key = `${spec.type}:${spec.id}`;
    this.fair = spec.initialPriceTicks;
  }

  get active(): boolean {
    return this.spec.status === 'active';
  }

  /** Quote lots of `size` lots at `price` ticks. */
  notional(price: number, size: number): bigint {
    return BigInt(price) * BigInt(size) * this.k;
  }

  /** Appends a trade and folds it into candles and the 24h window. */
  addTrade(trade: Trade, nowMs: number, price: number, size: number, quote: bigint): void {
    this.trades.push(trade);
    this.newTrades.push(trade);
    this.lastPrice = price;
    this.window.add(nowMs, price, size, quote);
    for (const r of RESOLUTIONS) {
      const b = this.candles[r].at(nowMs, (t) => ({ t, open: price, high: price, low: price, close: price, base: 0, quote: 0n, trades: 0 }));
      if (price > b.high) b.high = price;
      if (price < b.low) b.low = price;
      b.close = price;
      b.base += size;
      b.quote += quote;
      b.trades += 1;
    }
    this.candlesChanged = true;
    this.statsDirty = true;
  }

  /** Samples the mark price into the mark candles (perps). */
  sampleMark(nowMs: number): void {
    const p = this.fair;
    for (const r of RESOLUTIONS) {
      const b = this.markCandles[r].at(nowMs, (t) => ({ t, open: p, high: p, low: p, close: p, samples: 0 }));
      if (p > b.high) b.high = p;
      if (p < b.low) b.low = p;
      b.close = p;
      b.samples += 1;
    }
    this.markSampled = true;
    this.statsDirty = true;
  }

  candleRecord(r: Resolution): LastCandle | undefined {
    const b = this.candles[r].last();
    return b && toCandle(b);
  }

  markCandleRecord(r: Resolution): MarkCandle | undefined {
    const b = this.markCandles[r].last();
    return b && toMarkCandle(b);
  }

  candleWindow(r: Resolution, start: number, end: number, countBack: number): LastCandle[] {
    return this.candles[r].window(start, end, countBack).map(toCandle);
  }

  markCandleWindow(r: Resolution, start: number, end: number, countBack: number): MarkCandle[] {
    return this.markCandles[r].window(start, end, countBack).map(toMarkCandle);
  }

  /** The current best bid and offer from the book. */
  currentBbo(): Bbo {
    const b = this.book.bids.best();
    const a = this.book.asks.best();
    return {
      bid: b ? { price_ticks: String(b.price), size_base_lots: String(b.total) } : null,
      ask: a ? { price_ticks: String(a.price), size_base_lots: String(a.total) } : null,
    };
  }

  /** Builds the current statistics record (also expires the 24h window). */
  buildStats(nowNs: bigint): MarketStats {
    const w = this.window.stats(Number(nowNs / 1_000_000n));
    const s: MarketStats = {
      market_type: this.spec.type,
      market_id: this.spec.id,
      timestamp_ns: nowNs.toString(),
      volume_24h_base_lots: w.volumeBase.toString(),
      volume_24h_quote_lots: w.volumeQuote.toString(),
      trades_24h: String(w.trades),
    };
    if (this.lastPrice !== undefined) s.last_price_ticks = String(this.lastPrice);
    if (this.isPerp) {
      s.mark_price_ticks = String(this.fair);
      s.oracle_price_ticks = String(this.fair);
    }
    const bid = this.book.bids.best();
    const ask = this.book.asks.best();
    if (bid && ask) s.mid_price_ticks = String(Math.floor((bid.price + ask.price) / 2));
    if (bid) s.best_bid_price_ticks = String(bid.price);
    if (ask) s.best_ask_price_ticks = String(ask.price);
    if (this.isPerp) {
      s.open_interest_base_lots = String(this.openInterest);
      s.funding_rate_100th_bps = this.fundingRate;
      s.predicted_funding_rate_100th_bps = this.predictedFundingRate;
    }
    if (w.low !== undefined) s.low_24h_price_ticks = String(w.low);
    if (w.high !== undefined) s.high_24h_price_ticks = String(w.high);
    if (w.open !== undefined && this.lastPrice !== undefined) s.change_24h_bps = Math.trunc(((this.lastPrice - w.open) * 10_000) / w.open);
    return s;
  }

  clearChanges(): void {
    this.bidChanges.clear();
    this.askChanges.clear();
    this.newTrades.length = 0;
    this.candlesChanged = false;
    this.markSampled = false;
    this.statsDirty = false;
    this.newFunding = undefined;
  }
}

function toCandle(b: CandleBucket): LastCandle {
  return { open_time_ms: b.t, open: String(b.open), high: String(b.high), low: String(b.low), close: String(b.close), volume_base: String(b.base), volume_quote: b.quote.toString(), trades: b.trades };
}

function toMarkCandle(b: MarkBucket): MarkCandle {
  return { open_time_ms: b.t, open: String(b.open), high: String(b.high), low: String(b.low), close: String(b.close), samples: b.samples };
}
