/**
 * The seeded order-flow generator. Each event picks one active market and does one thing
 * there: the market maker repairs its ladder around the drifting fair value (which keeps
 * the book hundreds of levels deep), a trader places a limit order near the touch (which
 * may cross), a trader cancels, or a trader sends a market order. Takers lean against the
 * market maker's inventory and traders respect position caps, so balances stay bounded
 * however long the simulation runs. Every decision comes from the seeded generator. @internal
 */
import type { Side } from '../../protocol';
import type { EngineOrder } from './Book';
import { QUOTE_TOKEN } from './catalog';
import { impliedFundingRate, settleFunding } from './funding';
import type { Matcher } from './Matcher';
import type { MarketState } from './MarketState';
import type { Prng } from './Prng';
import { feeOf } from './settlement';
import type { SubaccountState } from './SubaccountState';
import type { World } from './World';

export interface OrderFlowOptions {
  /** Market events between two funding settlements of a perp market. */
  readonly fundingIntervalEvents: number;
}

/** Probability that the fair value moves one tick in an event. */
const DRIFT_PROBABILITY = 0.06;
/** Most open orders a trader keeps per market before it cancels its oldest. */
const TRADER_MAX_OPEN = 12;

export class OrderFlow {
  private readonly active: MarketState[];
  /** The market maker's ladder orders per market side, by price. */
  private readonly ladder = new Map<string, Map<number, EngineOrder>>();
  private readonly initialBase = new Map<string, bigint>();

  constructor(
    private readonly w: World,
    private readonly matcher: Matcher,
    private readonly rng: Prng,
    private readonly mm: SubaccountState,
    private readonly traders: readonly SubaccountState[],
    private readonly options: OrderFlowOptions,
  ) {
    this.active = w.markets.filter((m) => m.active);
    for (const m of w.markets) {
      this.ladder.set(`${m.key}:bid`, new Map());
      this.ladder.set(`${m.key}:ask`, new Map());
      if (!m.isPerp) this.initialBase.set(m.key, mm.balance(m.spec.base).total);
    }
  }

  /** Lays out the market maker's full ladder on every market (world construction). */
  seedLadders(): void {
    for (const m of this.w.markets) {
      for (let i = 0; i < m.spec.ladderLevels; i++) {
        this.placeLadder(m, 'bid', m.fair - m.spec.halfSpreadTicks - i);
        this.placeLadder(m, 'ask', m.fair + m.spec.halfSpreadTicks + i);
      }
    }
  }

  /** Runs one order-flow event. */
  event(): void {
    if (this.active.length === 0) return;
    const m = this.rng.pick(this.active);
    this.w.touchMarket(m);
    if (this.rng.chance(DRIFT_PROBABILITY)) this.drift(m);
    const r = this.rng.float();
    if (r < 0.42) this.requote(m);
    else if (r < 0.66) this.traderLimit(m);
    else if (r < 0.84) this.traderCancel(m);
    else this.traderMarket(m);
    if (m.isPerp && ++m.eventsSinceFunding >= this.options.fundingIntervalEvents) {
      const rate = impliedFundingRate(m) + this.rng.int(-20, 20);
      settleFunding(this.w, m, Math.max(-500, Math.min(500, rate)));
    }
  }

  private drift(m: MarketState): void {
    // Mean-reverting walk: the further from the listing price, the likelier the way back.
    const dev = (m.fair - m.spec.initialPriceTicks) / (m.spec.initialPriceTicks * 0.03);
    const pUp = 0.5 - 0.4 * Math.max(-1, Math.min(1, dev));
    m.fair += this.rng.chance(pUp) ? 1 : -1;
    if (m.isPerp) m.sampleMark(this.w.eventMs);
    m.predictedFundingRate = impliedFundingRate(m);
    m.statsDirty = true;
  }

  private ladderOf(m: MarketState, side: Side): Map<number, EngineOrder> {
    return this.ladder.get(`${m.key}:${side}`)!;
  }

  private placeLadder(m: MarketState, side: Side, price: number): void {
    if (price <= 0) return;
    const [lo, hi] = m.spec.mmSizeLots;
    const res = this.matcher.submit({ market: m, owner: this.mm, side, price, size: this.rng.int(lo, hi), kind: 'limit', clientOrderId: this.mm.nextClientOrderId++ });
    if (res.order.status === 'open') this.ladderOf(m, side).set(price, res.order);
  }

  /** One repair of the market maker's ladder on a random side. */
  private requote(m: MarketState): void {
    const side: Side = this.rng.chance(0.5) ? 'bid' : 'ask';
    const ladder = this.ladderOf(m, side);
    const hs = m.spec.halfSpreadTicks;
    const levels = m.spec.ladderLevels;
    const inner = side === 'bid' ? m.fair - hs : m.fair + hs;
    const outer = side === 'bid' ? inner - (levels - 1) : inner + (levels - 1);
    // Stale ladder orders sit inside the new touch or beyond the ladder's depth: walk the
    // book from each end only as far as those prices reach.
    const book = m.book.side(side);
    const inside = (p: number) => (side === 'bid' ? p > inner : p < inner);
    const beyond = (p: number) => (side === 'bid' ? p < outer : p > outer);
    for (let i = 0; i < book.prices.length && inside(book.prices[i]!); i++) {
      if (this.cancelLadder(ladder, book.prices[i]!)) return;
    }
    for (let i = book.prices.length - 1; i >= 0 && beyond(book.prices[i]!); i--) {
      if (this.cancelLadder(ladder, book.prices[i]!)) return;
    }
    // Refill a missing level, most often near the touch.
    for (let attempt = 0; attempt < 3; attempt++) {
      const i = Math.floor(levels * this.rng.float() ** 2);
      const price = side === 'bid' ? inner - i : inner + i;
      if (!this.live(ladder, price)) {
        if (this.mmCanQuote(m, side, price)) this.placeLadder(m, side, price);
        return;
      }
    }
  }

  /** The market maker's live ladder order at a price (forgetting one filled or cancelled elsewhere). */
  private live(ladder: Map<number, EngineOrder>, price: number): EngineOrder | undefined {
    const o = ladder.get(price);
    if (o && o.status !== 'open') {
      ladder.delete(price);
      return undefined;
    }
    return o;
  }

  private cancelLadder(ladder: Map<number, EngineOrder>, price: number): boolean {
    const o = this.live(ladder, price);
    if (!o) return false;
    ladder.delete(price);
    this.matcher.cancel(o);
    return true;
  }

  private mmCanQuote(m: MarketState, side: Side, price: number): boolean {
    if (m.isPerp) return true;
    const size = BigInt(m.spec.mmSizeLots[1]);
    return side === 'bid' ? this.mm.available(QUOTE_TOKEN) > m.notional(price, Number(size)) : this.mm.available(m.spec.base) > size * m.spec.baseAtomsPerLot;
  }

  /** Signed inventory of a subaccount in a market, in lots (perp position or spot base swing). */
  private inventory(sub: SubaccountState, m: MarketState): number {
    if (m.isPerp) return sub.positions.get(m.spec.id)?.size ?? 0;
    if (sub !== this.mm) return 0;
    return Number((sub.balance(m.spec.base).total - this.initialBase.get(m.key)!) / m.spec.baseAtomsPerLot);
  }

  /** A taker's side: leaning to reduce the market maker's inventory, forced to reduce its own beyond its cap. */
  private takerSide(trader: SubaccountState, m: MarketState): Side {
    const own = this.inventory(trader, m);
    if (Math.abs(own) >= m.spec.traderMaxLots) return own > 0 ? 'ask' : 'bid';
    const lean = Math.max(-1, Math.min(1, this.inventory(this.mm, m) / (m.spec.traderMaxLots * 4)));
    return this.rng.chance(0.5 + 0.35 * lean) ? 'bid' : 'ask';
  }

  private traderSize(m: MarketState, trader: SubaccountState, side: Side): number {
    const [lo, hi] = m.spec.traderSizeLots;
    let size = this.rng.int(lo, hi);
    const own = this.inventory(trader, m);
    const reducing = (side === 'bid' && own < 0) || (side === 'ask' && own > 0);
    if (reducing) size = Math.max(lo, Math.min(size, Math.abs(own)));
    return size;
  }

  /** Spot orders need the balance they spend; `price` is the worst price considered. */
  private affordable(trader: SubaccountState, m: MarketState, side: Side, price: number, size: number): boolean {
    if (m.isPerp) return true;
    if (side === 'ask') return trader.available(m.spec.base) >= BigInt(size) * m.spec.baseAtomsPerLot;
    const cost = m.notional(price, size);
    return trader.available(QUOTE_TOKEN) >= cost + feeOf(cost, m.spec.takerFee100thBps);
  }

  private traderLimit(m: MarketState): void {
    const trader = this.rng.pick(this.traders);
    const mine = this.openIn(trader, m);
    if (mine.length >= TRADER_MAX_OPEN) {
      this.matcher.cancel(mine[0]!);
      return;
    }
    const side = this.takerSide(trader, m);
    const d = this.rng.int(-2, 14);
    const price = side === 'bid' ? m.fair - d : m.fair + d;
    const size = this.traderSize(m, trader, side);
    if (price <= 0 || !this.affordable(trader, m, side, price, size)) return;
    this.matcher.submit({ market: m, owner: trader, side, price, size, kind: 'limit', clientOrderId: trader.nextClientOrderId++ });
  }

  private traderCancel(m: MarketState): void {
    const trader = this.rng.pick(this.traders);
    const mine = this.openIn(trader, m);
    if (mine.length > 0) this.matcher.cancel(this.rng.pick(mine));
  }

  private traderMarket(m: MarketState): void {
    const trader = this.rng.pick(this.traders);
    const side = this.takerSide(trader, m);
    const size = this.traderSize(m, trader, side);
    const worst = side === 'bid' ? Math.ceil(m.fair * 1.05) : Math.floor(m.fair * 0.95);
    if (!this.affordable(trader, m, side, worst, size)) return;
    this.matcher.submit({ market: m, owner: trader, side, price: worst, size, kind: 'market', clientOrderId: trader.nextClientOrderId++ });
  }

  private openIn(trader: SubaccountState, m: MarketState): EngineOrder[] {
    const out: EngineOrder[] = [];
    for (const o of trader.openOrders.values()) if (o.marketKey === m.key) out.push(o);
    return out;
  }
}
