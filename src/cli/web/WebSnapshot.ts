/**
 * What the web view's server pushes to its page, once per draw: the whole view (every
 * market's depth, last trades, every subscription's status, latency and its histogram),
 * already formatted (prices and sizes are the exact decimals of the terminal view). Defined
 * once here: the server builds it with {@link webSnapshot}, the page script reads these
 * fields, and the tests check every pushed event with {@link webSnapshotSchema}. Each
 * snapshot is complete, so a page that misses some (a slow page) only sees fewer. @internal
 */
import * as z from 'zod/mini';
import { LATENCY_BUCKET_BOUNDS_US } from '../view/LatencyBuckets';
import { clockOf } from '../view/marketPanel';
import { statusTone } from '../view/statusColor';
import type { ViewFrame } from '../view/ViewFrame';
import type { MarketView } from '../view/ViewModel';

/** Book levels per side sent for the depth chart. */
export const WEB_DEPTH_LEVELS = 40;

/** Bumped when a field changes meaning; the page shows an error on another version. */
export const WEB_SNAPSHOT_VERSION = 1;

const tone = z.enum(['good', 'healing', 'down', 'other']);
const status = z.strictObject({ status: z.string(), tone });
/** One level: exact price and size, and the size of this level and every better one (cumulative). */
const level = z.strictObject({ price: z.string(), size: z.string(), total: z.string() });
const percentiles = z.strictObject({ p50: z.number(), p99: z.number(), count: z.number() });

const market = z.strictObject({
  /** `perp:0`: stable across snapshots, the page's selection. */
  key: z.string(),
  symbol: z.string(),
  type: z.string(),
  id: z.number(),
  book: z.extend(status, {
    /** Best first. */
    bids: z.array(level),
    asks: z.array(level),
    mid: z.nullable(z.string()),
    spread: z.nullable(z.string()),
  }),
  last: z.nullable(z.string()),
  /** Newest first. */
  trades: z.array(z.strictObject({ time: z.string(), side: z.enum(['buy', 'sell']), price: z.string(), size: z.string() })),
  tradeCount: z.number(),
});

export const webSnapshotSchema = z.strictObject({
  v: z.literal(WEB_SNAPSHOT_VERSION),
  label: z.string(),
  elapsedMs: z.number(),
  feed: z.extend(status, { reason: z.string() }),
  markets: z.array(market),
  /** Every subscription, in the terminal view's order. */
  statuses: z.array(z.extend(status, { name: z.string(), detail: z.string() })),
  /** Microseconds. `model`: server timestamp to the view model; `sent`: to the push of the snapshot that carried it; `feed`: to the replica, worst of `streams`. */
  latency: z.strictObject({
    model: percentiles,
    sent: percentiles,
    feed: z.strictObject({ p50: z.number(), p99: z.number(), streams: z.number() }),
    /** `counts[i]`: samples of `model` up to `boundsUs[i]`; the last count is beyond the last bound. */
    histogram: z.strictObject({ boundsUs: z.array(z.number()), counts: z.array(z.number()) }),
  }),
  rates: z.strictObject({ framesPerSecond: z.number(), updatesPerSecond: z.number() }),
  resyncs: z.number(),
  errors: z.number(),
  lastError: z.nullable(z.string()),
  lastFault: z.nullable(z.string()),
});

export type WebSnapshot = z.infer<typeof webSnapshotSchema>;
type WebMarket = z.infer<typeof market>;
type WebLevel = z.infer<typeof level>;

function levels(mv: MarketView, side: 'bid' | 'ask'): WebLevel[] {
  const out: WebLevel[] = [];
  let total = 0n;
  const f = mv.fmt;
  mv.book?.state.forEachLevelBig(side, WEB_DEPTH_LEVELS, (price, size) => {
    total += size;
    out.push({ price: f.price(price), size: f.size(size), total: f.size(total) });
  });
  return out;
}

function orNull<T>(v: T | undefined, format: (v: T) => string): string | null {
  return v === undefined ? null : format(v);
}

function marketOf(mv: MarketView): WebMarket {
  const f = mv.fmt;
  const m = mv.market;
  const state = mv.book?.state;
  const bid = state?.bestBidBig();
  const ask = state?.bestAskBig();
  const both = bid !== undefined && ask !== undefined;
  const bookStatus = mv.book?.status ?? 'waiting';
  return {
    key: `${m.market_type}:${m.market_id}`,
    symbol: m.symbol,
    type: m.market_type,
    id: m.market_id,
    book: {
      status: bookStatus,
      tone: statusTone(bookStatus),
      bids: levels(mv, 'bid'),
      asks: levels(mv, 'ask'),
      mid: both ? f.halfPrice(bid + ask) : null,
      spread: both ? f.price(ask - bid) : null,
    },
    last: orNull(mv.stats?.state.last_price_ticks, (t) => f.price(t)),
    trades: mv.trades.map((t) => ({ time: clockOf(t.timestamp_ns), side: t.taker_is_bid ? 'buy' : 'sell', price: f.price(t.price_ticks), size: f.size(t.size_base_lots) })),
    tradeCount: mv.tradeCount,
  };
}

/** The snapshot of a frame (call right before pushing it). */
export function webSnapshot(frame: ViewFrame): WebSnapshot {
  const vm = frame.vm;
  const c = vm.connection;
  return {
    v: WEB_SNAPSHOT_VERSION,
    label: frame.label,
    elapsedMs: frame.elapsedMs,
    feed: { status: c.state, tone: statusTone(c.state), reason: c.reason },
    markets: vm.markets.map(marketOf),
    statuses: vm.subscriptions().map((s) => ({ name: s.name, status: s.status, tone: statusTone(s.status), detail: s.detail })),
    latency: {
      model: { p50: frame.modelLatency.p50, p99: frame.modelLatency.p99, count: frame.modelLatency.count },
      feed: { p50: frame.feed.p50, p99: frame.feed.p99, streams: frame.feed.streams },
      sent: { p50: frame.render.latency.p50, p99: frame.render.latency.p99, count: frame.render.latency.count },
      histogram: { boundsUs: [...LATENCY_BUCKET_BOUNDS_US], counts: vm.metrics.modelHistogram.snapshot() },
    },
    rates: { framesPerSecond: frame.render.framesPerSecond, updatesPerSecond: frame.render.updatesPerSecond },
    resyncs: frame.resyncs.total,
    errors: vm.errorCount,
    lastError: vm.lastError?.message ?? null,
    lastFault: frame.lastFault ? `${frame.lastFault.kind}: ${frame.lastFault.description}` : null,
  };
}
