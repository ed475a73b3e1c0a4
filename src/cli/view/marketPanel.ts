/**
 * One market's panel of the live view: the top levels of the book as depth bars (asks
 * above, bids below, best levels next to the spread line), spread and mid, the last
 * trades, the market stats and funding. Pure: a view model in, lines out. @internal
 */
import type { MarketStats } from '../../protocol';
import { bar, bold, cyan, dim, green, padEnd, padStart, red, yellow } from '../term/ansi';
import { bpsToPercent, rate100thBpsToPercent, type MarketFormat } from './MarketFormat';
import type { MarketView } from './ViewModel';
import { statusColor } from './statusColor';

export interface PanelLayout {
  /** Columns of the panel. */
  readonly width: number;
  /** Book levels per side. */
  readonly levels: number;
  /** Trades listed. */
  readonly trades: number;
}

/** `HH:MM:SS.mmm` (UTC) of a nanosecond timestamp. */
export function clockOf(ns: string | bigint): string {
  return new Date(Number(BigInt(ns) / 1_000_000n)).toISOString().slice(11, 23);
}

interface Level {
  price: bigint;
  size: bigint;
}

function levelsOf(mv: MarketView, side: 'bid' | 'ask', n: number): Level[] {
  const out: Level[] = [];
  mv.book?.state.forEachLevelBig(side, n, (price, size) => void out.push({ price, size }));
  return out;
}

function depthLine(fmt: MarketFormat, level: Level | undefined, maxSize: bigint, width: number, priceW: number, sizeW: number, color: (t: string) => string): string {
  if (!level) return '';
  const barW = Math.max(1, width - priceW - sizeW - 4);
  const fraction = maxSize > 0n ? Number((level.size * 10_000n) / maxSize) / 10_000 : 0;
  return ` ${color(padStart(fmt.price(level.price), priceW))} ${padStart(fmt.size(level.size), sizeW)}  ${color(bar(fraction, barW))}`;
}

function bookLines(mv: MarketView, layout: PanelLayout): string[] {
  const { fmt } = mv;
  const n = layout.levels;
  const asks = levelsOf(mv, 'ask', n);
  const bids = levelsOf(mv, 'bid', n);
  const all = [...asks, ...bids];
  const maxSize = all.reduce((m, l) => (l.size > m ? l.size : m), 0n);
  const priceW = Math.max(5, ...all.map((l) => fmt.price(l.price).length));
  const sizeW = Math.max(4, ...all.map((l) => fmt.size(l.size).length));
  const lines: string[] = [dim(` ${padStart('price', priceW)} ${padStart('size', sizeW)}`)];
  // Asks: deepest first, so the best ask sits right above the spread line.
  for (let i = n - 1; i >= 0; i--) lines.push(depthLine(fmt, asks[i], maxSize, layout.width, priceW, sizeW, red));
  const book = mv.book?.state;
  const bid = book?.bestBidBig();
  const ask = book?.bestAskBig();
  if (bid !== undefined && ask !== undefined) {
    const spread = ask - bid;
    lines.push(yellow(` spread ${fmt.price(spread)} (${spread} tick${spread === 1n ? '' : 's'})  mid ${fmt.halfPrice(bid + ask)}`));
  } else {
    lines.push(yellow(' spread -  mid -'));
  }
  for (let i = 0; i < n; i++) lines.push(depthLine(fmt, bids[i], maxSize, layout.width, priceW, sizeW, green));
  return lines;
}

function tradeLines(mv: MarketView, count: number): string[] {
  const lines = [dim(` last trades (${mv.tradeCount}${mv.tradeGaps ? `, ${mv.tradeGaps} gaps` : ''})`)];
  for (let i = 0; i < count; i++) {
    const t = mv.trades[i];
    if (!t) {
      lines.push('');
      continue;
    }
    const side = t.taker_is_bid ? green('buy ') : red('sell');
    lines.push(` ${dim(clockOf(t.timestamp_ns))} ${side} ${padStart(mv.fmt.price(t.price_ticks), 12)} ${padStart(mv.fmt.size(t.size_base_lots), 10)}`);
  }
  return lines;
}

function opt(fmt: (v: string) => string, v: string | undefined): string {
  return v === undefined ? '-' : fmt(v);
}

function statsLines(mv: MarketView): string[] {
  const s: MarketStats | undefined = mv.stats?.state;
  const f = mv.fmt;
  if (!s) return [dim(' stats: waiting'), '', '', ''];
  const price = (v: string | undefined) => opt((x) => f.price(x), v);
  const change = s.change_24h_bps === undefined ? '-' : bpsToPercent(s.change_24h_bps);
  const lines = [
    ` last ${bold(price(s.last_price_ticks))}  mark ${price(s.mark_price_ticks)}  24h ${change}`,
    ` vol ${f.size(s.volume_24h_base_lots)} (${f.quote(s.volume_24h_quote_lots)} ${f.quoteToken})  hi ${price(s.high_24h_price_ticks)} lo ${price(s.low_24h_price_ticks)}`,
  ];
  if (mv.market.market_type === 'perp') {
    const fr = s.funding_rate_100th_bps === undefined ? '-' : rate100thBpsToPercent(s.funding_rate_100th_bps);
    const pfr = s.predicted_funding_rate_100th_bps === undefined ? '-' : rate100thBpsToPercent(s.predicted_funding_rate_100th_bps);
    lines.push(` OI ${opt((x) => f.size(x), s.open_interest_base_lots)}  funding ${fr}  predicted ${pfr}`);
    const last = mv.funding;
    lines.push(last ? ` last funding ${rate100thBpsToPercent(last.funding_rate_100th_bps)} at ${clockOf(last.timestamp_ns).slice(0, 8)} (${mv.fundingCount} received)` : dim(' last funding: waiting'));
  } else {
    lines.push(` trades 24h ${s.trades_24h}  oracle ${price(s.oracle_price_ticks)}`, '');
  }
  return lines;
}

/** The panel's lines, each at most `layout.width` columns. */
export function marketPanel(mv: MarketView, layout: PanelLayout): string[] {
  const m = mv.market;
  const status = mv.book?.status ?? 'waiting';
  const title = ` ${bold(cyan(mv.fmt.symbol))} ${dim(`${m.market_type} #${m.market_id}`)}${m.status === 'active' ? '' : ` ${yellow(m.status)}`}`;
  const lines = [padEnd(title, layout.width - 12) + padStart(`book ${statusColor(status)}`, 12)];
  if (!mv.book) lines.push(dim(' waiting for the book snapshot...'), ...new Array<string>(layout.levels * 2 + 1).fill(''));
  else lines.push(...bookLines(mv, layout));
  lines.push(...tradeLines(mv, layout.trades), ...statsLines(mv));
  return lines.map((l) => padEnd(l, layout.width));
}
