/** The engine's own order API: matching, resting, cancelling and its argument checks. */
import { Order as OrderSchema, Fill as FillSchema, type Bbo, type Order } from '../../../src/protocol';
import { Engine } from '../../../src/simulator/engine/Engine';
import { SimulatorRequestError } from '../../../src/simulator/engine/SimulatorRequestError';
import { roles } from './fixtures';

function bbo(e: Engine, type: 'spot' | 'perp', id: number): Bbo {
  return (e.query('bbo', { market_type: type, market_id: id }).body as { data: Bbo }).data;
}

describe('Engine.placeOrder / cancelOrder', () => {
  const e = new Engine({ seed: 31 });
  // The treasury's subaccount 0 never trades in the order flow: it has no resting orders to self-trade with.
  const { trader, idle, mm, treasury } = roles(e);

  it('a crossing limit order trades at the resting prices and reports its fills', () => {
    const ask = bbo(e, 'perp', 0).ask!;
    const size = BigInt(ask.size_base_lots) + 5n;
    const { order, fills } = e.placeOrder({ address: treasury, subaccount_id: 0, market_type: 'perp', market_id: 0, side: 'bid', price_ticks: BigInt(ask.price_ticks) + 50n, size_base_lots: size, client_order_id: '777' });
    expect(OrderSchema.safeParse(order).success).toBe(true);
    for (const f of fills) expect(FillSchema.safeParse(f).success).toBe(true);
    expect(order.status).toBe('filled');
    expect(order.client_order_id).toBe('777');
    expect(fills.reduce((s, f) => s + BigInt(f.size_base_lots), 0n)).toBe(size);
    expect(fills[0]!.price_ticks).toBe(ask.price_ticks);
    expect(fills.every((f) => f.role === 'taker' && f.side === 'bid')).toBe(true);
    const listed = e.query('orders', { address: treasury, subaccount_id: 0, status: 'history', client_order_id: '777' }).body as { data: Order[]; next_cursor: null };
    expect(listed.data).toEqual([order]);
    expect(listed.next_cursor).toBeNull();
  });

  it('a passive limit order rests, shows in the book and the open orders, and cancels', () => {
    const bid = bbo(e, 'spot', 3).bid!;
    const price = BigInt(bid.price_ticks);
    const { order, fills } = e.placeOrder({ address: treasury, subaccount_id: 0, market_type: 'spot', market_id: 3, side: 'bid', price_ticks: price, size_base_lots: '50' });
    expect(fills).toEqual([]);
    expect(order.status).toBe('open');
    expect(bbo(e, 'spot', 3).bid).toEqual({ price_ticks: bid.price_ticks, size_base_lots: String(BigInt(bid.size_base_lots) + 50n) });
    const active = (e.query('orders', { address: treasury, subaccount_id: 0, status: 'active', limit: 100 }).body as { data: Order[] }).data;
    expect(active.map((o) => o.order_id)).toContain(order.order_id);
    const balances = (e.query('balances', { address: treasury, subaccount_id: 0 }).body as { data: { token_id: string; locked_token_atoms: string }[] }).data;
    expect(balances.find((b) => b.token_id === 'USDC')!.locked_token_atoms).toBe(String(price * 50n));
    const cancelled = e.cancelOrder({ address: treasury, subaccount_id: 0, order_id: order.order_id })!;
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.remaining_size_base_lots).toBe('50');
    expect(BigInt(cancelled.remaining_size_base_lots) + BigInt(cancelled.filled_size_base_lots)).toBe(50n);
    expect(bbo(e, 'spot', 3).bid).toEqual(bid);
    expect(e.cancelOrder({ address: treasury, subaccount_id: 0, order_id: order.order_id })).toBeUndefined();
  });

  it('a market order sweeps down to its worst price and cancels what it could not fill', () => {
    const book = (e.query('orderBook', { market_type: 'perp', market_id: 1, depth: 3 }).body as { data: { bids: { price_ticks: string; size_base_lots: string }[] } }).data;
    const available = book.bids.reduce((s, l) => s + BigInt(l.size_base_lots), 0n);
    const { order, fills } = e.placeOrder({ address: treasury, subaccount_id: 0, market_type: 'perp', market_id: 1, side: 'ask', price_ticks: book.bids[2]!.price_ticks, size_base_lots: available + 1_000n, kind: 'market' });
    expect(order.status).toBe('cancelled');
    expect(order.filled_size_base_lots).toBe(String(available));
    expect(order.remaining_size_base_lots).toBe('1000');
    expect(fills.map((f) => f.price_ticks)).toEqual(expect.arrayContaining(book.bids.map((l) => l.price_ticks)));
    const small = e.placeOrder({ address: treasury, subaccount_id: 0, market_type: 'perp', market_id: 1, side: 'bid', size_base_lots: 2n, kind: 'market' });
    expect(small.order.status).toBe('filled');
  });

  it('self-trade prevention cancels the resting order of the same subaccount', () => {
    // Without warm-up the book is the market maker's ladder alone, with a two-tick spread.
    const fresh = new Engine({ seed: 31, warmupEvents: 0 });
    const owner = { address: roles(fresh).treasury, subaccount_id: 0 };
    const { bid, ask } = bbo(fresh, 'perp', 0);
    const mid = (BigInt(bid!.price_ticks) + BigInt(ask!.price_ticks)) / 2n;
    expect(mid > BigInt(bid!.price_ticks) && mid < BigInt(ask!.price_ticks)).toBe(true);
    const rest = fresh.placeOrder({ ...owner, market_type: 'perp', market_id: 0, side: 'ask', price_ticks: mid, size_base_lots: 3n }).order;
    expect(rest.status).toBe('open');
    const taker = fresh.placeOrder({ ...owner, market_type: 'perp', market_id: 0, side: 'bid', price_ticks: mid, size_base_lots: 3n });
    expect(taker.fills).toEqual([]);
    expect(taker.order.status).toBe('open');
    const history = (fresh.query('orders', { ...owner, status: 'history', limit: 5 }).body as { data: Order[] }).data;
    expect(history.find((o) => o.order_id === rest.order_id)?.status).toBe('cancelled');
  });

  it('rejects bad calls with clear errors', () => {
    const base = { address: trader, subaccount_id: 0, market_type: 'perp' as const, market_id: 0, side: 'bid' as const, price_ticks: '60000', size_base_lots: '1' };
    const bad: [object, RegExp][] = [
      [{ market_id: 9 }, /unknown perp market 9/],
      [{ market_type: 'spot' }, /unknown spot market 0/],
      [{ market_id: 2 }, /paused/],
      [{ address: idle, subaccount_id: 1 }, /closed/],
      [{ subaccount_id: 7 }, /unknown subaccount 7/],
      [{ address: '11111111111111111111111111111111' }, /unknown account/],
      [{ size_base_lots: '0' }, /size_base_lots/],
      [{ size_base_lots: '-3' }, /size_base_lots/],
      [{ price_ticks: undefined }, /price_ticks is required/],
      [{ side: 'buy' }, /side/],
      [{ client_order_id: '18446744073709551616' }, /client_order_id/],
      [{ market_type: 'spot', market_id: 3, side: 'ask', size_base_lots: '900000000', price_ticks: '150000' }, /insufficient SOL/],
    ];
    for (const [patch, re] of bad) {
      expect(() => e.placeOrder({ ...base, ...patch } as never)).toThrow(SimulatorRequestError);
      expect(() => e.placeOrder({ ...base, ...patch } as never)).toThrow(re);
    }
    expect(() => e.cancelOrder({ address: mm, subaccount_id: 3, order_id: 'x' })).toThrow(/unknown subaccount/);
  });
});
