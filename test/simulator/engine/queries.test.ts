/** In-process queries: every operation answers schema-valid data of one consistent world. */
import { OPERATION_NAMES, RESOLUTIONS, RESOLUTION_MS, responseSchema, streamKey, summarizeZodError, type FundingRate, type LastCandle, type MarkCandle, type Position } from '../../../src/protocol';
import { Engine } from '../../../src/simulator/engine/Engine';
import { FAR_FUTURE_MS, roles, validParams } from './fixtures';

const e = new Engine({ seed: 21 });
e.step(3_000);

function data<D>(name: Parameters<Engine['query']>[0], params: Record<string, string | number>): D {
  const r = e.query(name, params);
  if (r.status !== 200) throw new Error(`${name} -> ${r.status} ${JSON.stringify(r.body)}`);
  const body = r.body as { data?: D };
  return ('data' in body ? body.data : r.body) as D;
}

describe('every operation', () => {
  const params = validParams(e);
  it.each(OPERATION_NAMES.map((n) => [n]))('%s answers 200 with a schema-valid body', (name) => {
    const r = e.query(name, params[name]);
    expect(r.status).toBe(200);
    const v = responseSchema(name).safeParse(r.body);
    if (!v.success) throw new Error(`${name}: ${summarizeZodError(v.error, 5)}`);
  });

  it('returns non-empty data for the representative parameters', () => {
    for (const name of OPERATION_NAMES) {
      const body = e.query(name, params[name]).body as { data?: unknown };
      const d = 'data' in body ? body.data : body;
      if (Array.isArray(d)) expect([name, d.length > 0]).toEqual([name, true]);
    }
  });
});

describe('one consistent world', () => {
  it('lists the same market ids in /v1/markets and the unversioned /markets', () => {
    const v1 = data<{ market_type: string; market_id: number; symbol: string }[]>('markets', { market_type: 'all' });
    const legacy = [...data<{ market_type: string; market_id: number; symbol: string }[]>('marketsUnversioned', { market_type: 'perp' }), ...data<{ market_type: string; market_id: number; symbol: string }[]>('marketsUnversioned', { market_type: 'spot' })];
    const ids = (xs: { market_type: string; market_id: number; symbol: string }[]) => xs.map((m) => `${m.market_type}:${m.market_id}:${m.symbol}`).sort();
    expect(ids(legacy)).toEqual(ids(v1));
    expect(v1.filter((m) => m.market_type === 'spot').length).toBeGreaterThanOrEqual(2);
    expect(v1.filter((m) => m.market_type === 'perp').length).toBeGreaterThanOrEqual(2);
  });

  it('names only known accounts, markets and tokens', () => {
    const addresses = new Set(e.accounts.map((a) => a.address));
    const subs = new Set(e.accounts.flatMap((a) => a.subaccount_ids.map((s) => `${a.address}/${s}`)));
    const markets = new Set(e.markets.map((m) => m.market_id));
    const tokens = new Set(data<{ token_id: string }[]>('tokens', {}).map((t) => t.token_id));
    for (const m of e.markets) {
      expect(tokens.has(m.quote_token_id!)).toBe(true);
      if (m.fee_recipient) expect(addresses.has(m.fee_recipient)).toBe(true);
      for (const o of data<{ address: string; subaccount_id: number }[]>('orderBookOrders', { market_type: m.market_type, market_id: m.market_id, limit: 100 })) expect(subs.has(`${o.address}/${o.subaccount_id}`)).toBe(true);
    }
    for (const l of data<{ address: string; subaccount_id: number; market_id: number }[]>('liquidations', { market_id: 0, limit: 100 }).concat(data('liquidations', { market_id: 1, limit: 100 }))) {
      expect(subs.has(`${l.address}/${l.subaccount_id}`)).toBe(true);
      expect(markets.has(l.market_id)).toBe(true);
    }
    for (const v of data<{ vault_id: string; manager: string; subaccount_id: number }[]>('vaults', {})) {
      expect(subs.has(`${v.manager}/${v.subaccount_id}`)).toBe(true);
      for (const d of data<{ address: string }[]>('vaultDepositors', { vault_id: v.vault_id })) expect(addresses.has(d.address)).toBe(true);
    }
    for (const d of data<{ address: string }[]>('blpDepositors', {})) expect(addresses.has(d.address)).toBe(true);
    for (const a of e.accounts) {
      for (const s of a.subaccount_ids) {
        for (const b of data<{ token_id: string }[]>('balances', { address: a.address, subaccount_id: s })) expect(tokens.has(b.token_id)).toBe(true);
        for (const p of data<Position[]>('positions', { address: a.address, subaccount_id: s })) expect(markets.has(p.market_id)).toBe(true);
        for (const t of data<{ transaction_hash: string }[]>('transfers', { address: a.address, subaccount_id: s, kind: 'all', limit: 100 })) {
          expect(data<unknown[]>('transactions', { hash: t.transaction_hash })).toHaveLength(1);
        }
      }
    }
  });

  it('keeps open interest equal to total longs, total shorts and the statistics', () => {
    for (const id of [0, 1]) {
      let longs = 0n;
      let shorts = 0n;
      for (const a of e.accounts) {
        for (const s of a.subaccount_ids) {
          for (const p of data<Position[]>('positions', { address: a.address, subaccount_id: s, market_id: id })) {
            if (p.side === 'long') longs += BigInt(p.size_base_lots);
            else shorts += BigInt(p.size_base_lots);
          }
        }
      }
      expect(longs).toBeGreaterThan(0n);
      expect(longs).toBe(shorts);
      const stats = data<{ open_interest_base_lots: string }[]>('marketStats', { market_type: 'perp', market_id: id })[0]!;
      expect(BigInt(stats.open_interest_base_lots)).toBe(longs);
    }
  });

  it('keeps subaccount margins consistent with positions and balances', () => {
    const { trader } = roles(e);
    const acct = data<{ subaccounts: { equity_quote_lots: string; cross_margin_balance_quote_lots: string; initial_margin_requirement_quote_lots: string }[] }>('account', { address: trader, subaccount_id: 0 }).subaccounts[0]!;
    const positions = data<Position[]>('positions', { address: trader, subaccount_id: 0 });
    const upnl = positions.reduce((s, p) => s + BigInt(p.unrealized_pnl_quote_lots), 0n);
    const margin = positions.reduce((s, p) => s + BigInt(p.margin_used_token_atoms), 0n);
    expect(BigInt(acct.equity_quote_lots)).toBe(BigInt(acct.cross_margin_balance_quote_lots) + upnl);
    expect(BigInt(acct.initial_margin_requirement_quote_lots)).toBe(margin);
    const usdc = data<{ token_id: string; total_token_atoms: string }[]>('balances', { address: trader, subaccount_id: 0 }).find((b) => b.token_id === 'USDC')!;
    expect(usdc.total_token_atoms).toBe(acct.cross_margin_balance_quote_lots);
  });
});

describe('candles and funding', () => {
  it.each(RESOLUTIONS.map((r) => [r]))('%s candles: one row per aligned bucket, low <= open, close <= high', (r) => {
    const body = e.query('candles', { market_type: 'perp', market_id: 0, resolution: r, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 }).body as { data: LastCandle[]; sequence: string };
    expect(BigInt(body.sequence)).toBe(e.hub.seq(streamKey('candles', { market_id: 0, is_perps: true, interval: r })));
    const marks = data<MarkCandle[]>('markCandles', { market_id: 0, resolution: r, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 });
    for (const rows of [body.data, marks]) {
      expect(rows.length).toBeGreaterThan(0);
      rows.forEach((c, i) => {
        expect(c.open_time_ms % RESOLUTION_MS[r]).toBe(0);
        if (i > 0) expect(c.open_time_ms).toBeGreaterThan(rows[i - 1]!.open_time_ms);
        const [o, h, l, cl] = [c.open, c.high, c.low, c.close].map(BigInt) as [bigint, bigint, bigint, bigint];
        expect(l <= o && l <= cl && o <= h && cl <= h).toBe(true);
      });
    }
    const trades = body.data.reduce((s, c) => s + c.trades, 0);
    const newest = data<{ sequence: string }[]>('trades', { market_type: 'perp', market_id: 0, limit: 1 })[0]!;
    expect(trades).toBe(Number(newest.sequence));
  });

  it('windows are half-open [start, end) and count_back keeps the newest buckets, oldest first', () => {
    const all = data<LastCandle[]>('candles', { market_type: 'spot', market_id: 3, resolution: '1m', start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, count_back: 500 });
    const last = all[all.length - 1]!;
    const t = last.open_time_ms;
    const w = (start: number, end: number, count_back = 500) => data<LastCandle[]>('candles', { market_type: 'spot', market_id: 3, resolution: '1m', start_timestamp: start, end_timestamp: end, count_back });
    expect(w(t, t + 60_000)).toEqual([last]);
    expect(w(t, t)).toEqual([]);
    expect(w(0, t)).toEqual(all.slice(0, -1));
    expect(w(0, FAR_FUTURE_MS, 1)).toEqual([last]);
  });

  it('funding rates are newest first with strictly increasing sequences, windowed [start, end)', () => {
    const rates = data<FundingRate[]>('fundingRates', { market_id: 1, start_timestamp: 0, end_timestamp: FAR_FUTURE_MS, limit: 100 });
    expect(rates.length).toBeGreaterThan(24);
    for (let i = 1; i < rates.length; i++) expect(Number(rates[i]!.sequence)).toBe(Number(rates[i - 1]!.sequence) - 1);
    const r = rates[rates.length - 1]!;
    const ms = Number(BigInt(r.timestamp_ns) / 1_000_000n);
    const w = (start: number, end: number) => data<FundingRate[]>('fundingRates', { market_id: 1, start_timestamp: start, end_timestamp: end, limit: 100 });
    expect(w(ms, ms + 1)).toEqual([r]);
    expect(w(0, ms)).toEqual([]);
  });
});
