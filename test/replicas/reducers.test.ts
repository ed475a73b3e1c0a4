import fc from 'fast-check';
import { CHANNEL_NAMES, CHANNELS, type Balance, type LastCandle, type MarketStats, type Order, type Position } from '../../src/protocol';
import { ReplicaIntegrityError } from '../../src/replicas/ReplicaIntegrityError';
import { candlesFromSnapshot, upsertAll, type CandleReducerOptions, type KeyedSet } from '../../src/replicas/reducers';
import { channelReducer, stateReducer, eventReducer, STATE_CHANNELS, EVENT_CHANNELS, type EventChannel, type StateChannel } from '../../src/replicas/channelReducers';
import { address, balance, candle, fill, fundingRate, order, position, subaccount, trade } from './fixtures';

// Every reducer below is the one the replicas use: chosen by the channel's kind in the table.
const bboReducer = stateReducer('bbo');
const marketStatsReducer = stateReducer('marketStats');
const accountReducer = stateReducer('account');
const balancesReducer = stateReducer('balances');
const positionsReducer = stateReducer('positions');
const ordersReducer = stateReducer('orders');
const createCandlesReducer = (options?: CandleReducerOptions) => stateReducer('candles', options);
const createMarkCandlesReducer = (options?: CandleReducerOptions) => stateReducer('markCandles', options);

const SEED = { seed: 424242 };

describe('replace reducers', () => {
  it('bbo: the snapshot, then each update whole', () => {
    const a = { bid: { price_ticks: '9', size_base_lots: '1' }, ask: null };
    const b = { bid: null, ask: { price_ticks: '11', size_base_lots: '2' } };
    const s = bboReducer.fromSnapshot(a, {});
    expect(s).toEqual(a);
    expect(bboReducer.apply(s, b, 1n)).toEqual(b);
  });

  it("marketStats: picks the scope's market from the snapshot list", () => {
    const stats = (market_type: 'spot' | 'perp', market_id: number, trades: string): MarketStats => ({ market_type, market_id, timestamp_ns: '1', volume_24h_base_lots: '0', volume_24h_quote_lots: '0', trades_24h: trades });
    const list = [stats('spot', 1, 'a'), stats('perp', 1, 'b'), stats('perp', 2, 'c')];
    expect(marketStatsReducer.fromSnapshot(list, { market_id: 1, is_perps: true }).trades_24h).toBe('b');
    expect(marketStatsReducer.fromSnapshot(list, { market_id: 1, is_perps: false }).trades_24h).toBe('a');
    expect(() => marketStatsReducer.fromSnapshot(list, { market_id: 3, is_perps: true })).toThrow(ReplicaIntegrityError);
    expect(marketStatsReducer.apply(list[1]!, list[2]!, 2n)).toBe(list[2]);
  });

  it('account: picks the subaccount from {address, subaccounts}, rejects an update of another one', () => {
    const info = { address: address(1), subaccounts: [subaccount(0), subaccount(3, 50)] };
    const s = accountReducer.fromSnapshot(info, { address: address(1), subaccount_id: 3 });
    expect(s.equity_quote_lots).toBe('50');
    expect(accountReducer.apply(s, subaccount(3, 70), 1n).equity_quote_lots).toBe('70');
    expect(() => accountReducer.apply(s, subaccount(0, 70), 1n)).toThrow(ReplicaIntegrityError);
    expect(() => accountReducer.fromSnapshot(info, { address: address(1), subaccount_id: 9 })).toThrow(/no subaccount 9/);
  });
});

describe('upsert reducers (model-based)', () => {
  type SetReducer<K, T> = { fromSnapshot(s: readonly T[], scope: object): KeyedSet<K, T>; apply(s: KeyedSet<K, T>, d: unknown, seq: bigint): KeyedSet<K, T> };

  /**
   * Runs a reducer and a plain Map model side by side over random batches: same content,
   * `lastChanges` = the batch's touched keys (first-touch order) with the model's value
   * before and after it, and a set from an earlier snapshot is never changed by a later one.
   */
  function agrees<K, T>(reducer: SetReducer<K, T>, wrap: (records: T[]) => unknown, keyOf: (r: T) => K, removes: (r: T) => boolean, record: fc.Arbitrary<T>): void {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 8 }), fc.array(fc.array(record, { maxLength: 5 }), { maxLength: 15 }), (snapshot, batches) => {
        const model = new Map<K, T>();
        const fold = (rs: T[]) => {
          for (const r of rs) {
            if (removes(r)) model.delete(keyOf(r));
            else model.set(keyOf(r), r);
          }
        };
        fold(snapshot);
        const older = reducer.fromSnapshot(snapshot, {});
        const olderFrozen = new Map(older);
        let state = reducer.fromSnapshot(snapshot, {});
        expect(state).not.toBe(older);
        expect(new Map(state)).toEqual(model);
        expect(state.lastChanges).toEqual([]);
        batches.forEach((batch, i) => {
          const before = new Map(model);
          state = reducer.apply(state, wrap(batch), BigInt(i + 1));
          fold(batch);
          expect(new Map(state)).toEqual(model);
          const touched = [...new Set(batch.map(keyOf))];
          const expected = touched.filter((k) => before.has(k) || model.has(k)).map((key) => ({ key, before: before.get(key), after: model.get(key) }));
          expect(state.lastChanges).toEqual(expected);
          for (const c of state.lastChanges) {
            expect(c.before).toBe(before.get(c.key));
            expect(c.after).toBe(model.get(c.key));
          }
        });
        expect(new Map(older)).toEqual(olderFrozen); // a snapshot's set is never touched by another's updates
      }),
      SEED,
    );
  }

  it('balances: upsert by token_id', () => {
    const rec = fc.tuple(fc.constantFrom('USDC', 'SOL', 'BTC', 'ETH'), fc.nat(1000)).map(([t, n]) => balance(t, n));
    agrees<string, Balance>(balancesReducer, (balances) => ({ balances }), (b) => b.token_id, () => false, rec);
  });

  it('positions: upsert by market_id, size zero removes', () => {
    const rec = fc.tuple(fc.nat(5), fc.oneof(fc.constant('0'), fc.constant('000'), fc.nat(50).map(String))).map(([m, size]) => position(m, size));
    agrees<number, Position>(positionsReducer, (positions) => ({ positions }), (p) => p.market_id, (p) => /^0+$/.test(p.size_base_lots), rec);
  });

  it('orders: upsert by order_id, filled or cancelled removes from the open set', () => {
    const rec = fc.tuple(fc.nat(6), fc.constantFrom<Order['status']>('open', 'open', 'filled', 'cancelled'), fc.integer({ min: 1, max: 5 })).map(([n, st, rem]) => order(n, st, rem));
    agrees<string, Order>(ordersReducer, (orders) => ({ orders }), (o) => o.order_id, (o) => o.status !== 'open', rec);
  });

  it('updates the set in place (a live view) and lists only keys that were or are in the set', () => {
    const s = positionsReducer.fromSnapshot([position(1, 5)], {});
    expect(positionsReducer.apply(s, { positions: [position(2, 0)] }, 1n)).toBe(s);
    expect(s.lastChanges).toEqual([]);
    expect(positionsReducer.apply(s, { positions: [position(3, 4), position(1, 0), position(3, 0)] }, 2n)).toBe(s);
    expect(s.lastChanges).toEqual([{ key: 1, before: position(1, 5), after: undefined }]);
    expect([...s.keys()]).toEqual([]);
  });

  it('upsertAll copies a plain Map before updating it', () => {
    const plain = new Map([[1, position(1, 5)]]);
    const next = upsertAll(plain, [position(1, 6)], { keyOf: (p) => p.market_id, removes: (p) => /^0+$/.test(p.size_base_lots) });
    expect(next).not.toBe(plain);
    expect(plain.get(1)).toEqual(position(1, 5));
    expect(next.lastChanges).toEqual([{ key: 1, before: position(1, 5), after: position(1, 6) }]);
  });

  it('a set compares equal to a plain Map with the same entries', () => {
    const s = balancesReducer.fromSnapshot([balance('USDC', 1)], {});
    balancesReducer.apply(s, { balances: [balance('SOL', 2)] }, 1n);
    expect(s).toEqual(new Map([['USDC', balance('USDC', 1)], ['SOL', balance('SOL', 2)]]));
  });
});

describe('candle reducers', () => {
  it('keep the newest N buckets, sorted, each with its latest values (model-based)', () => {
    const N = 20;
    const reducer = createCandlesReducer({ maxCandles: N });
    const bucket = fc.nat(60).map((i) => i * 60_000);
    const c = fc.tuple(bucket, fc.nat(1000)).map(([t, close]) => candle(t, close));
    fc.assert(
      fc.property(fc.array(c, { maxLength: 30 }), fc.array(c, { maxLength: 60 }), (snapshot, updates) => {
        const model = new Map<number, LastCandle>();
        for (const x of snapshot) model.set(x.open_time_ms, x);
        let state = reducer.fromSnapshot(snapshot, {});
        const expected = () => [...model.values()].sort((a, b) => a.open_time_ms - b.open_time_ms).slice(-N);
        expect(state).toEqual(expected());
        for (const u of updates) {
          const before = state;
          const copy = [...before];
          // A bucket older than a full window is inserted and evicted at once: the state stays the newest N.
          model.set(u.open_time_ms, u);
          state = reducer.apply(state, u, 1n);
          expect(state).toEqual(expected());
          expect(before).toEqual(copy);
        }
      }),
      SEED,
    );
  });

  it('default window is 500: replace the live bucket, append the next one', () => {
    const reducer = createMarkCandlesReducer();
    const mark = (t: number, close: string) => ({ open_time_ms: t, open: '1', high: '9', low: '1', close, samples: 1 });
    let s = reducer.fromSnapshot(Array.from({ length: 600 }, (_, i) => mark(i * 60_000, '1')).reverse(), {});
    expect(s).toHaveLength(500);
    expect(s[0]!.open_time_ms).toBe(100 * 60_000);
    s = reducer.apply(s, mark(599 * 60_000, '5'), 1n);
    expect(s).toHaveLength(500);
    expect(s[499]!.close).toBe('5');
    s = reducer.apply(s, mark(600 * 60_000, '6'), 2n);
    expect(s).toHaveLength(500);
    expect(s[0]!.open_time_ms).toBe(101 * 60_000);
    expect(s[499]!.close).toBe('6');
  });

  it('a duplicated bucket in the snapshot keeps its last row', () => {
    expect(candlesFromSnapshot([candle(0, 1), candle(0, 2)], 10)).toEqual([candle(0, 2)]);
  });

  it('check their options', () => {
    expect(() => createCandlesReducer({ maxCandles: 0 })).toThrow(/maxCandles/);
  });
});

describe('channel registry', () => {
  it('has a reducer for every channel of the table, through its kind, each naming its channel', () => {
    for (const c of CHANNEL_NAMES) expect(channelReducer(c).channel).toBe(c);
    for (const c of STATE_CHANNELS) expect(stateReducer(c).channel).toBe(c);
    for (const c of EVENT_CHANNELS) expect(eventReducer(c).channel).toBe(c);
    expect([...STATE_CHANNELS, ...EVENT_CHANNELS].sort()).toEqual([...CHANNEL_NAMES].sort());
  });

  it('the event and state channels are the ones the table names by kind, and the ones the state types describe', () => {
    // Compile-time lists of the type maps (a channel missing here or extra fails to compile).
    const states: Record<StateChannel, true> = { book: true, bbo: true, marketStats: true, candles: true, markCandles: true, account: true, balances: true, positions: true, orders: true };
    const events: Record<EventChannel, true> = { trades: true, fills: true, fundingRates: true };
    expect([...EVENT_CHANNELS].sort()).toEqual(Object.keys(events).sort());
    expect([...STATE_CHANNELS].sort()).toEqual(Object.keys(states).sort());
    for (const c of EVENT_CHANNELS) expect(CHANNELS[c].kind).toBe('events');
    for (const c of STATE_CHANNELS) expect(CHANNELS[c].kind).not.toBe('events');
  });

  it('the kind parameters of the table drive the reducers: records, key, removal, sequence', () => {
    const s = stateReducer('orders').fromSnapshot([order(1), order(2)], {});
    stateReducer('orders').apply(s, { orders: [order(1, 'filled'), order(3)] }, 1n);
    expect([...s.keys()].sort()).toEqual([order(2).order_id, order(3).order_id].sort());
    expect(CHANNELS.orders.kind === 'upsert' && CHANNELS.orders.upsert.allPages).toBe(true); // every page, by the source
    expect(CHANNELS.balances.kind === 'upsert' && CHANNELS.balances.upsert.allPages).toBeFalsy();
    const seqs = (c: EventChannel, data: unknown) => {
      const r = eventReducer(c);
      const st = r.apply(r.fromSnapshot({ records: [], exhausted: true }, {}), data, 1n);
      return st.delivered.map((i) => (i.kind === 'record' ? i.sequence : -1n));
    };
    expect(seqs('trades', { trades: [trade(2), trade(1)] })).toEqual([1n, 2n]);
    expect(seqs('fills', { fills: [fill(5)] })).toEqual([5n]);
    expect(seqs('fundingRates', fundingRate(7))).toEqual([7n]);
  });
});
