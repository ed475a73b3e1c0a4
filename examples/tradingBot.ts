/**
 * A momentum bot written with RxJS operators: it watches the public trades and the best
 * bid/offer of BTC-PERP, compares a fast and a slow moving average of trade prices, and
 * logs a decision (buy at the ask, sell at the bid) each time the signal turns. It trades
 * on paper: position and PnL are kept exactly (integers) and printed at the end.
 *
 *   npx tsx examples/tradingBot.ts [--duration-ms 10000] [--seed 1]
 */
import { distinctUntilChanged, filter, from, map, scan, share, takeUntil, withLatestFrom } from 'rxjs';
import { quoteLotsToQuoteAmount, ticksToPrice, baseLotsToSize, type Bbo, type Trade } from '../src';
import { startExample } from './support/exampleRun';

const MARKET = { market_type: 'perp', market_id: 0 } as const;
/** Trades before the averages mean anything. */
const WARMUP_TRADES = 10;
/** The fast average must lead the slow one by this many ticks to count as momentum. */
const THRESHOLD_TICKS = 0.5;
/** Paper order size, in base lots. */
const ORDER_LOTS = 10n;

type Signal = 'buy' | 'sell' | 'flat';

interface Averages {
  readonly n: number;
  readonly fast: number;
  readonly slow: number;
}

const ex = await startExample('tradingBot');
const { client, log } = ex;
const market = (await client.rest.markets({ market_type: 'perp', market_id: MARKET.market_id })).data[0]!;
const price = (ticks: bigint | string) => ticksToPrice(market, ticks);
const end$ = from(ex.done);

// Every trade once, in sequence order (gap markers are logged, not traded on).
const items$ = client.trades(MARKET).pipe(share());
const trades$ = items$.pipe(
  filter((i) => i.kind === 'record'),
  map((i) => i.record as Trade),
);
const bbo$ = client.bbo(MARKET).pipe(
  filter((s) => s.status === 'live'),
  map((s) => s.state as Bbo),
);

// Moving averages of the trade price (signal only: floats are fine here; money is exact below).
const ema = (prev: number, x: number, alpha: number) => prev + alpha * (x - prev);
const signal$ = trades$.pipe(
  scan<Trade, Averages>((a, t) => {
    const p = Number(t.price_ticks);
    return a.n === 0 ? { n: 1, fast: p, slow: p } : { n: a.n + 1, fast: ema(a.fast, p, 0.3), slow: ema(a.slow, p, 0.05) };
  }, { n: 0, fast: 0, slow: 0 }),
  filter((a) => a.n >= WARMUP_TRADES),
  map((a): { signal: Signal; lead: number } => {
    const lead = a.fast - a.slow;
    return { signal: lead > THRESHOLD_TICKS ? 'buy' : lead < -THRESHOLD_TICKS ? 'sell' : 'flat', lead };
  }),
  distinctUntilChanged((x, y) => x.signal === y.signal),
);

let tradesSeen = 0;
let gaps = 0;
let decisions = 0;
let positionLots = 0n; // signed: long > 0
let cashQuoteLots = 0n;
let lastMid: bigint | undefined;
// Quote lots of one base lot at one tick: a whole number on this market (as `Trade.quote_notional_lots` shows).
const quoteLotsPerTickLot = BigInt(market.quote_lots_per_base_unit_per_tick) / BigInt(market.base_lots_per_base_unit);

const counting = items$.pipe(takeUntil(end$)).subscribe((i) => (i.kind === 'gap' ? (gaps++, log(`gap in trades: ${i.fromSequence}..${i.toSequence} (${i.reason})`)) : tradesSeen++));
const midTracking = bbo$.pipe(takeUntil(end$)).subscribe((b) => {
  if (b.bid && b.ask) lastMid = (BigInt(b.bid.price_ticks) + BigInt(b.ask.price_ticks)) / 2n;
});
const deciding = signal$.pipe(withLatestFrom(bbo$), takeUntil(end$)).subscribe(([{ signal, lead }, b]) => {
  if (signal === 'flat') {
    log(`FLAT  momentum faded (fast - slow = ${lead.toFixed(2)} ticks)`);
    return;
  }
  const level = signal === 'buy' ? b.ask : b.bid;
  if (!level) return;
  decisions++;
  const ticks = BigInt(level.price_ticks);
  positionLots += signal === 'buy' ? ORDER_LOTS : -ORDER_LOTS;
  cashQuoteLots += (signal === 'buy' ? -1n : 1n) * ticks * ORDER_LOTS * quoteLotsPerTickLot;
  log(`${signal.toUpperCase().padEnd(5)} ${baseLotsToSize(market, ORDER_LOTS)} ${market.symbol} @ ${price(ticks)} (${signal === 'buy' ? 'ask' : 'bid'}); fast - slow = ${lead.toFixed(2)} ticks; position ${baseLotsToSize(market, positionLots)}`);
});

await ex.done;
for (const s of [deciding, counting, midTracking]) s.unsubscribe();
// Paper PnL: cash plus the position marked at the last mid.
const pnl = cashQuoteLots + (lastMid === undefined ? 0n : positionLots * lastMid * quoteLotsPerTickLot);
log(`tradingBot: ${tradesSeen} trades seen, ${gaps} gaps, ${decisions} decisions, paper position ${baseLotsToSize(market, positionLots)} ${market.base_token}, paper PnL ${quoteLotsToQuoteAmount(market, pnl)} ${market.quote_token}`);
await ex.close();
