/**
 * The live view as ONE line (stdout not a terminal: printed once a second, for pipes and
 * tests). Plain `key=value` words, groups separated by ` | `, no escape sequences. Latency:
 * `model_p50`/`model_p99`, server timestamp to the view model, and `feed_p50`/`feed_p99`,
 * server timestamp to the replica (worst stream). @internal
 */
import { ms, type ViewFrame } from './ViewFrame';
import type { MarketView } from './ViewModel';

function marketPart(mv: MarketView): string {
  const f = mv.fmt;
  const words = [f.symbol, `book=${mv.book?.status ?? 'waiting'}`];
  const book = mv.book?.state;
  const bid = book?.bestBidBig();
  const ask = book?.bestAskBig();
  words.push(`bid=${bid === undefined ? '-' : f.price(bid)}`, `ask=${ask === undefined ? '-' : f.price(ask)}`);
  if (bid !== undefined && ask !== undefined) words.push(`mid=${f.halfPrice(bid + ask)}`, `spread=${f.price(ask - bid)}`);
  const last = mv.stats?.state.last_price_ticks;
  words.push(`stats=${mv.stats?.status ?? 'waiting'}`, `last=${last === undefined ? '-' : f.price(last)}`, `trades=${mv.tradeCount}`);
  if (mv.market.market_type === 'perp') words.push(`fundings=${mv.fundingCount}`);
  return words.join(' ');
}

/** The one-line form of a frame. */
export function statusLine(f: ViewFrame): string {
  const vm = f.vm;
  const parts = [`t=${(f.elapsedMs / 1000).toFixed(1)}s feed=${vm.connection.state}`];
  for (const mv of vm.markets) parts.push(marketPart(mv));
  if (vm.accountTarget) {
    const a = vm.account;
    parts.push(a ? `account=${a.status} balances=${a.state.balances.size} positions=${a.state.positions.size} orders=${a.state.openOrders.size}` : 'account=waiting');
  }
  const r = f.render;
  parts.push(
    [
      // Not server->draw: one line a second would measure that cadence, not latency.
      `model_p50=${ms(f.modelLatency.p50)}`,
      `model_p99=${ms(f.modelLatency.p99)}`,
      `feed_p50=${ms(f.feed.p50)}`,
      `feed_p99=${ms(f.feed.p99)}`,
      `frames/s=${r.framesPerSecond.toFixed(0)}`,
      `resyncs=${f.resyncs.total}`,
      `errors=${vm.errorCount}`,
      `fault=${f.lastFault?.kind ?? 'none'}`,
    ].join(' '),
  );
  return parts.join(' | ');
}
