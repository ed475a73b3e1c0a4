/**
 * Books stay valid, and every stream replays onto its REST snapshot: applying the updates
 * published after a snapshot's `sequence` reproduces the engine's true state.
 */
import { streamKey, type Bbo, type Balance, type Order, type OrderBook, type Position, type Scope, type Subaccount, type Trade, type ChannelName } from '../../../src/protocol';
import type { StreamEvent } from '../../../src/simulator/StreamHub';
import { Engine } from '../../../src/simulator/engine/Engine';
import { roles } from './fixtures';

type Body<D> = { data: D; sequence: string; next_cursor?: string | null };

function q<D>(e: Engine, name: Parameters<Engine['query']>[0], params: Record<string, string | number>): Body<D> {
  const r = e.query(name, params);
  if (r.status !== 200) throw new Error(`${name} ${JSON.stringify(params)} -> ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Body<D>;
}

/** Events of one stream published from now on, checked to be contiguous. */
function collect(e: Engine, channel: ChannelName, scope: Scope): StreamEvent[] {
  const key = streamKey(channel, scope);
  const out: StreamEvent[] = [];
  e.hub.onEvent((ev) => {
    if (ev.key === key) out.push(ev);
  });
  return out;
}

function expectContiguousAfter(events: StreamEvent[], s: bigint): void {
  events.forEach((ev, i) => expect(ev.seq).toBe(s + BigInt(i) + 1n));
}

describe('book invariants', () => {
  const e = new Engine({ seed: 5 });
  e.step(4_000);

  it.each(e.markets.map((m) => [m.symbol, m]))('%s is sorted, uncrossed, without empty levels, and sums its orders', (_s, m) => {
    const book = q<OrderBook>(e, 'orderBook', { market_type: m.market_type, market_id: m.market_id, depth: 500 }).data;
    const bids = book.bids.map((l) => Number(l.price_ticks));
    const asks = book.asks.map((l) => Number(l.price_ticks));
    for (let i = 1; i < bids.length; i++) expect(bids[i]!).toBeLessThan(bids[i - 1]!);
    for (let i = 1; i < asks.length; i++) expect(asks[i]!).toBeGreaterThan(asks[i - 1]!);
    expect(bids[0]!).toBeLessThan(asks[0]!);
    for (const l of [...book.bids, ...book.asks]) expect(BigInt(l.size_base_lots)).toBeGreaterThan(0n);
    // Resting orders, all pages, add up to the levels.
    const sums = new Map<string, bigint>();
    let cursor: string | null | undefined;
    do {
      const page = q<{ side: string; price_ticks: string; remaining_size_base_lots: string; original_size_base_lots: string }[]>(e, 'orderBookOrders', { market_type: m.market_type, market_id: m.market_id, limit: 100, ...(cursor ? { cursor } : {}) });
      for (const o of page.data) {
        expect(BigInt(o.remaining_size_base_lots)).toBeGreaterThan(0n);
        expect(BigInt(o.remaining_size_base_lots)).toBeLessThanOrEqual(BigInt(o.original_size_base_lots));
        const k = `${o.side}:${o.price_ticks}`;
        sums.set(k, (sums.get(k) ?? 0n) + BigInt(o.remaining_size_base_lots));
      }
      cursor = page.next_cursor;
    } while (cursor);
    for (const l of book.bids) expect(sums.get(`bid:${l.price_ticks}`)).toBe(BigInt(l.size_base_lots));
    for (const l of book.asks) expect(sums.get(`ask:${l.price_ticks}`)).toBe(BigInt(l.size_base_lots));
  });

  it('keeps BTC-PERP deeper than 500 levels a side, so depth=500 is truncated', () => {
    e.step(3_000);
    const book = q<OrderBook>(e, 'orderBook', { market_type: 'perp', market_id: 0, depth: 500 }).data;
    expect(book.bids).toHaveLength(500);
    expect(book.asks).toHaveLength(500);
    const small = q<OrderBook>(e, 'orderBook', { market_type: 'perp', market_id: 0, depth: 3 }).data;
    expect(small.bids).toEqual(book.bids.slice(0, 3));
  });
});

describe('stream replay onto snapshots', () => {
  it('book deltas applied to a depth-500 snapshot reproduce the true top of book', () => {
    const e = new Engine({ seed: 11 });
    e.step(300);
    const scope = { market_id: 0, is_perps: true };
    const events = collect(e, 'book', scope);
    const snap = q<OrderBook>(e, 'orderBook', { market_type: 'perp', market_id: 0, depth: 500 });
    expect(BigInt(snap.sequence)).toBe(e.hub.seq(streamKey('book', scope)));
    const bids = new Map(snap.data.bids.map((l) => [Number(l.price_ticks), l.size_base_lots]));
    const asks = new Map(snap.data.asks.map((l) => [Number(l.price_ticks), l.size_base_lots]));
    e.step(4_000);
    expectContiguousAfter(events, BigInt(snap.sequence));
    for (const ev of events) {
      const d = ev.data as OrderBook;
      expect(Array.isArray(d.bids) && Array.isArray(d.asks)).toBe(true);
      for (const [side, levels] of [[bids, d.bids], [asks, d.asks]] as const) {
        expect(new Set(levels.map((l) => l.price_ticks)).size).toBe(levels.length);
        for (const l of levels) {
          if (l.size_base_lots === '0') side.delete(Number(l.price_ticks));
          else side.set(Number(l.price_ticks), l.size_base_lots);
        }
      }
    }
    const truth = q<OrderBook>(e, 'orderBook', { market_type: 'perp', market_id: 0, depth: 500 }).data;
    const top = (m: Map<number, string>, desc: boolean, n: number) =>
      [...m].sort((a, b) => (desc ? b[0] - a[0] : a[0] - b[0])).slice(0, n).map(([p, s]) => ({ price_ticks: String(p), size_base_lots: s }));
    expect(top(bids, true, 200)).toEqual(truth.bids.slice(0, 200));
    expect(top(asks, false, 200)).toEqual(truth.asks.slice(0, 200));
  });

  it('bbo, marketStats and trades streams continue their snapshots exactly', () => {
    const e = new Engine({ seed: 12 });
    const scope = { market_id: 3, is_perps: false };
    const params = { market_type: 'spot', market_id: 3 };
    const bboEvents = collect(e, 'bbo', scope);
    const statsEvents = collect(e, 'marketStats', scope);
    const tradeEvents = collect(e, 'trades', scope);
    const bbo0 = q<Bbo>(e, 'bbo', params);
    const trades0 = q<Trade[]>(e, 'trades', { ...params, limit: 100 });
    e.step(2_000);
    for (const [evs, s] of [[bboEvents, bbo0.sequence], [tradeEvents, trades0.sequence]] as const) expectContiguousAfter(evs, BigInt(s));
    expect(bboEvents.length).toBeGreaterThan(0);
    expect(bboEvents[bboEvents.length - 1]!.data).toEqual(q<Bbo>(e, 'bbo', params).data);
    const stats = q<unknown[]>(e, 'marketStats', { market_type: 'spot', market_id: 3 });
    expect(statsEvents[statsEvents.length - 1]!.data).toEqual(stats.data[0]);
    expect(BigInt(stats.sequence)).toBe(e.hub.seq(streamKey('marketStats', scope)));
    // Trades: strictly increasing sequences that continue the snapshot's newest one.
    const streamed = tradeEvents.flatMap((ev) => (ev.data as { trades: Trade[] }).trades.map((t) => Number(t.sequence)));
    const newest0 = Number(trades0.data[0]?.sequence ?? 0);
    streamed.forEach((s, i) => expect(s).toBe(newest0 + i + 1));
    expect(Number(q<Trade[]>(e, 'trades', { ...params, limit: 1 }).data[0]!.sequence)).toBe(newest0 + streamed.length);
  });

  it('account channels replay onto their snapshots', () => {
    const e = new Engine({ seed: 13 });
    const { mm, trader } = roles(e);
    for (const address of [mm, trader]) {
      const scope = { address, subaccount_id: 0 };
      const params = { address, subaccount_id: 0 };
      const ev = {
        account: collect(e, 'account', scope),
        balances: collect(e, 'balances', scope),
        positions: collect(e, 'positions', scope),
        orders: collect(e, 'orders', scope),
      };
      const acct = q<{ subaccounts: Subaccount[] }>(e, 'account', params);
      const bal = q<Balance[]>(e, 'balances', params);
      const pos = q<Position[]>(e, 'positions', params);
      const open = new Map<string, Order>();
      let cursor: string | null | undefined;
      let ordersSeq: string | undefined;
      do {
        const page: Body<Order[]> = q<Order[]>(e, 'orders', { ...params, status: 'active', limit: 100, ...(cursor ? { cursor } : {}) });
        ordersSeq ??= page.sequence;
        expect(page.sequence).toBe(ordersSeq);
        for (const o of page.data) open.set(o.order_id, o);
        cursor = page.next_cursor;
      } while (cursor);
      e.step(2_500);
      expectContiguousAfter(ev.account, BigInt(acct.sequence));
      expectContiguousAfter(ev.balances, BigInt(bal.sequence));
      expectContiguousAfter(ev.positions, BigInt(pos.sequence));
      expectContiguousAfter(ev.orders, BigInt(ordersSeq!));
      expect(ev.orders.length).toBeGreaterThan(0);
      let account = acct.data.subaccounts[0]!;
      for (const x of ev.account) account = x.data as Subaccount;
      expect(account).toEqual(q<{ subaccounts: Subaccount[] }>(e, 'account', params).data.subaccounts[0]);
      const balances = new Map(bal.data.map((b) => [b.token_id, b]));
      for (const x of ev.balances) for (const b of (x.data as { balances: Balance[] }).balances) balances.set(b.token_id, b);
      expect([...balances.values()].sort((a, b) => a.token_id.localeCompare(b.token_id))).toEqual(q<Balance[]>(e, 'balances', params).data.sort((a, b) => a.token_id.localeCompare(b.token_id)));
      const positions = new Map(pos.data.map((p) => [p.market_id, p]));
      for (const x of ev.positions) {
        for (const p of (x.data as { positions: Position[] }).positions) {
          if (p.size_base_lots === '0') positions.delete(p.market_id);
          else positions.set(p.market_id, p);
        }
      }
      expect([...positions.values()].sort((a, b) => a.market_id - b.market_id)).toEqual(q<Position[]>(e, 'positions', params).data.sort((a, b) => a.market_id - b.market_id));
      for (const x of ev.orders) {
        for (const o of (x.data as { orders: Order[] }).orders) {
          if (o.status === 'open') open.set(o.order_id, o);
          else open.delete(o.order_id);
        }
      }
      const truth: Order[] = [];
      cursor = undefined;
      do {
        const page: Body<Order[]> = q<Order[]>(e, 'orders', { ...params, status: 'active', limit: 100, ...(cursor ? { cursor } : {}) });
        truth.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      const byId = (a: Order, b: Order) => a.order_id.localeCompare(b.order_id);
      expect([...open.values()].sort(byId)).toEqual(truth.sort(byId));
    }
  });

  it('fills stream continues the fills snapshot with strictly increasing sequences', () => {
    const e = new Engine({ seed: 14 });
    const { trader } = roles(e);
    const params = { address: trader, subaccount_id: 0 };
    const events = collect(e, 'fills', { address: trader, subaccount_id: 0 });
    const snap = q<{ sequence: string }[]>(e, 'fills', { ...params, role: 'all', limit: 100 });
    e.step(3_000);
    expectContiguousAfter(events, BigInt(snap.sequence));
    const seqs = events.flatMap((x) => (x.data as { fills: { sequence: string }[] }).fills.map((f) => Number(f.sequence)));
    expect(seqs.length).toBeGreaterThan(0);
    const first = Number(snap.data[0]?.sequence ?? 0);
    seqs.forEach((s, i) => expect(s).toBe(first + i + 1));
  });
});
