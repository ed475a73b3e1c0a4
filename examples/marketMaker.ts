/**
 * A market maker on BTC-PERP. On every book update it reads the local book in place
 * (best bid/ask in O(1) and the top levels through a non-allocating `forEachLevel`),
 * quotes one bid and one ask around the mid, leaning away from its inventory, and
 * replaces a quote when its target price moves. Orders go through the simulator's control
 * surface (`sim.placeOrder` / `sim.cancelOrder`: the exchange's API document shows no order
 * submission operation). Inventory and fills come from the account replica.
 *
 *   npx tsx examples/marketMaker.ts [--duration-ms 10000] [--seed 1]
 */
import { filter } from 'rxjs';
import { baseLotsToSize, sizeToBaseLots, ticksToPrice, type AccountReplicaState, type Market, type OrderBook } from '../src';
import type { Simulator } from '../src/simulator';
import { startExample } from './support/exampleRun';

const MARKET = { market_type: 'perp', market_id: 0 } as const;
/** Ticks between the mid and each quote. */
const HALF_SPREAD_TICKS = 2;
/** Levels per side read for the book imbalance. */
const TOP_LEVELS = 5;
/** A quote is replaced at most this often per side. */
const REQUOTE_MS = 250;

const ex = await startExample('marketMaker');
const { sim, client, log } = ex;
const market: Market = (await client.rest.markets({ market_type: 'perp', market_id: MARKET.market_id })).data[0]!;
const QUOTE_LOTS = sizeToBaseLots(market, '0.001');
const MAX_INVENTORY_LOTS = 5n * QUOTE_LOTS;
const price = (ticks: number | bigint) => ticksToPrice(market, BigInt(ticks));
const size = (lots: bigint) => baseLotsToSize(market, lots);

/** A funded subaccount of the simulated world that has no order of its own yet. */
function quietSubaccount(s: Simulator): { address: string; subaccount_id: number } {
  for (const a of s.engine.accounts) {
    for (const id of a.subaccount_ids) {
      const q = { address: a.address, subaccount_id: id };
      const acct = s.truth('account', q).body as { data: { subaccounts: { status: string }[] } };
      const orders = s.truth('orders', { ...q, status: 'active', limit: 1 }).body as { data: unknown[] };
      const balances = s.truth('balances', q).body as { data: { token_id: string; total_token_atoms: string }[] };
      const usdc = balances.data.find((b) => b.token_id === market.quote_token);
      if (acct.data.subaccounts[0]?.status === 'active' && orders.data.length === 0 && usdc && BigInt(usdc.total_token_atoms) > 0n) return q;
    }
  }
  throw new Error('no quiet funded subaccount in this simulated world');
}
const me = quietSubaccount(sim);
log(`quoting ${market.symbol} as ${me.address}/${me.subaccount_id}: ${size(QUOTE_LOTS)} a side, ${HALF_SPREAD_TICKS} ticks from the mid`);

type Side = 'bid' | 'ask';
interface Quote {
  orderId: string;
  priceTicks: number;
  placedAtMs: number;
}
const quotes: Record<Side, Quote | undefined> = { bid: undefined, ask: undefined };
let inventoryLots = 0n; // signed, from the account replica's position
let booksRead = 0;
let placed = 0;
let cancelled = 0;
let fills = 0;

// The top-N read: one callback, created once, summing sizes into plain numbers (no allocation per update).
let depthSum = 0;
const addSize = (_price: number, levelSize: number): void => {
  depthSum += levelSize;
};
function topDepth(book: OrderBook, side: Side): number {
  depthSum = 0;
  book.forEachLevel(side, TOP_LEVELS, addSize);
  return depthSum;
}

function cancel(side: Side): void {
  const q = quotes[side];
  if (!q) return;
  quotes[side] = undefined;
  if (sim.cancelOrder({ ...me, order_id: q.orderId })) cancelled++;
}

function place(side: Side, priceTicks: number): void {
  try {
    const { order } = sim.placeOrder({ ...me, ...MARKET, side, price_ticks: String(priceTicks), size_base_lots: QUOTE_LOTS });
    placed++;
    // A quote that crossed and filled at once leaves nothing resting.
    if (order.status === 'open') quotes[side] = { orderId: order.order_id, priceTicks, placedAtMs: performance.now() };
  } catch (e) {
    log(`order refused: ${(e as Error).message}`);
  }
}

function requote(side: Side, target: number | undefined): void {
  const q = quotes[side];
  if (target === undefined) return cancel(side);
  if (q && (q.priceTicks === target || performance.now() - q.placedAtMs < REQUOTE_MS)) return;
  const was = q ? ` (was ${price(q.priceTicks)})` : '';
  cancel(side);
  place(side, target);
  if (quotes[side]) log(`quote ${side} ${size(QUOTE_LOTS)} @ ${price(target)}${was}`);
}

function onBook(book: OrderBook): void {
  booksRead++;
  const bid = book.bestBid();
  const ask = book.bestAsk();
  const mid = book.mid();
  if (bid === undefined || ask === undefined || mid === undefined) return;
  // Lean away from inventory (one tick per quote held) and toward the heavier side of the book.
  const bidDepth = topDepth(book, 'bid');
  const askDepth = topDepth(book, 'ask');
  const imbalance = bidDepth + askDepth > 0 ? (bidDepth - askDepth) / (bidDepth + askDepth) : 0;
  const fair = mid + imbalance - Number(inventoryLots / QUOTE_LOTS);
  // Never cross the book: a quote rests, it does not take.
  const bidTarget = Math.min(Math.floor(fair - HALF_SPREAD_TICKS), ask - 1);
  const askTarget = Math.max(Math.ceil(fair + HALF_SPREAD_TICKS), bid + 1);
  requote('bid', inventoryLots >= MAX_INVENTORY_LOTS ? undefined : bidTarget);
  requote('ask', inventoryLots <= -MAX_INVENTORY_LOTS ? undefined : askTarget);
}

function onAccount(a: AccountReplicaState): void {
  for (const c of a.changes) {
    if (c.kind === 'fill' && c.fill.market_id === MARKET.market_id) {
      fills++;
      log(`FILL ${c.fill.side === 'bid' ? 'bought' : 'sold'} ${size(BigInt(c.fill.size_base_lots))} @ ${price(BigInt(c.fill.price_ticks))} (${c.fill.role})`);
    }
    // One of our quotes left the open set (filled): quote that side again on the next update.
    if (c.kind === 'order' && c.before && !c.after) for (const side of ['bid', 'ask'] as const) if (quotes[side]?.orderId === c.order_id) quotes[side] = undefined;
  }
  const p = a.state.positions.get(MARKET.market_id);
  const next = p ? (p.side === 'long' ? 1n : -1n) * BigInt(p.size_base_lots) : 0n;
  if (next !== inventoryLots) log(`inventory ${size(inventoryLots)} -> ${size(next)} ${market.base_token}`);
  inventoryLots = next;
}

const bookSub = client.orderBook(MARKET).pipe(filter((e) => e.status === 'live')).subscribe((e) => onBook(e.state));
const accountSub = client.account(me).subscribe(onAccount);

await ex.done;
bookSub.unsubscribe();
cancel('bid');
cancel('ask');
accountSub.unsubscribe();
log(`marketMaker: ${booksRead} book updates read, ${placed} quotes placed, ${cancelled} cancelled, ${fills} fills, inventory ${size(inventoryLots)} ${market.base_token}`);
await ex.close();
