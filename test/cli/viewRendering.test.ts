/**
 * The pure parts of the live view: exact display decimals from the market records, ANSI
 * width handling, and both renderers (screen and one line) on a hand-built view model.
 */
import type { ExchangeClient } from '../../src';
import { OrderBook } from '../../src';
import type { Market, MarketStats } from '../../src/protocol';
import { bar, padEnd, stripAnsi, truncate, visibleLength } from '../../src/cli/term/ansi';
import { drawScreen } from '../../src/cli/view/drawScreen';
import { MarketFormat, padFraction, rate100thBpsToPercent, tokenAmount } from '../../src/cli/view/MarketFormat';
import { statusLine } from '../../src/cli/view/statusLine';
import type { ViewFrame } from '../../src/cli/view/ViewFrame';
import { ViewMetrics } from '../../src/cli/view/ViewMetrics';
import { ViewModel } from '../../src/cli/view/ViewModel';
import { prettyJson } from '../../src/cli/watch/prettyJson';
import { toJsonValue } from '../../src/cli/watch/toJsonValue';

function market(over: Partial<Market>): Market {
  return {
    market_type: 'spot', market_id: 3, symbol: 'SOL/USDC', base_token: 'SOL', quote_token: 'USDC', base_decimals: 9, quote_decimals: 6,
    base_atoms_per_base_lot: '1000000', quote_atoms_per_quote_lot: '1', base_lots_per_base_unit: '1000', quote_lots_per_quote_unit: '1000000',
    quote_lots_per_base_unit_per_tick: '1000', default_maker_fee_100th_bps: 0, default_taker_fee_100th_bps: 0, min_size_base_lots: '1',
    min_order_notional_quote_lots: '1', status: 'active', ...over,
  } as Market;
}
const SPOT = market({});
const PERP = market({ market_type: 'perp', market_id: 0, symbol: 'BTC-PERP', base_token: 'BTC', base_lots_per_base_unit: '10000', quote_lots_per_base_unit_per_tick: '1000000' });

describe('MarketFormat', () => {
  it('prints prices, sizes and quote amounts exactly, padded to the unit decimals', () => {
    const f = new MarketFormat(SPOT);
    expect([f.priceDecimals, f.sizeDecimals, f.quoteDecimals]).toEqual([3, 3, 6]);
    expect(f.price(150000n)).toBe('150.000');
    expect(f.price('150001')).toBe('150.001');
    expect(f.size(5n)).toBe('0.005');
    expect(f.quote('-1500000')).toBe('-1.500000');
    expect(f.halfPrice(300001n)).toBe('150.0005');
    expect(f.halfPrice(300002n)).toBe('150.001');
    // Beyond 2^53: still exact.
    expect(f.price(2n ** 64n - 1n)).toBe('18446744073709551.615');
    const p = new MarketFormat(PERP);
    expect([p.price(64995n), p.size(12n), p.halfPrice(129991n)]).toEqual(['64995', '0.0012', '64995.5']);
  });

  it('falls back to rounding only for a unit without a finite decimal expansion', () => {
    const f = new MarketFormat(market({ quote_lots_per_quote_unit: '3' }));
    expect(f.price(1n)).toBe('333.33333333');
  });

  it('formats token amounts and rates', () => {
    expect(tokenAmount('1500000', 6)).toBe('1.5');
    expect(tokenAmount('7', undefined)).toBe('7 atoms');
    expect(rate100thBpsToPercent(-10)).toBe('-0.001%');
    expect(padFraction('12', 2)).toBe('12.00');
    expect(padFraction('12.5', 3)).toBe('12.500');
  });
});

describe('ansi helpers', () => {
  it('measure, cut and pad ignoring escape sequences', () => {
    const red = '\x1b[31mred\x1b[0m';
    expect(visibleLength(`${red}!`)).toBe(4);
    expect(stripAnsi(truncate(`${red} and more`, 5))).toBe('red a');
    expect(visibleLength(padEnd(red, 10))).toBe(10);
    expect(bar(1, 4)).toBe('████');
    expect(bar(0.5, 3)).toBe('█▌');
    expect(bar(Number.NaN, 3)).toBe('');
  });
});

describe('watch JSON', () => {
  it('turns bigints into strings, maps into arrays and books into top-N levels', () => {
    const book = OrderBook.fromSnapshot({ bids: [{ price_ticks: '10', size_base_lots: '1' }, { price_ticks: '9', size_base_lots: '2' }], asks: [{ price_ticks: '11', size_base_lots: '3' }] });
    expect(toJsonValue({ a: 1n, m: new Map([['x', { v: 2n }]]), b: book, u: undefined }, { depth: 1 })).toEqual({
      a: '1',
      m: [{ v: '2' }],
      b: { bids: [{ price_ticks: '10', size_base_lots: '1' }], asks: [{ price_ticks: '11', size_base_lots: '3' }] },
    });
  });

  it('pretty-prints what fits on one line, members one per line otherwise', () => {
    expect(prettyJson({ a: [{ p: '1' }, { p: '2' }] }, 14)).toEqual(['{', '  "a": [', '    {"p":"1"},', '    {"p":"2"}', '  ]', '}']);
    expect(prettyJson({ a: 1 }, 80)).toEqual(['{"a":1}']);
  });
});

describe('renderers', () => {
  const client = {} as ExchangeClient;
  function frame(): ViewFrame {
    const vm = new ViewModel(client, { markets: [PERP, SPOT], allMarkets: [PERP, SPOT], account: undefined, tokenDecimals: new Map() });
    const perp = vm.markets[0]!;
    const book = OrderBook.fromSnapshot({ bids: [{ price_ticks: '64994', size_base_lots: '10' }], asks: [{ price_ticks: '64997', size_base_lots: '4' }, { price_ticks: '64999', size_base_lots: '20' }] });
    perp.book = { status: 'live', code: 'snapshot_applied', state: book, seq: 7n, timestampNs: 1n, receivedAtNs: 2n, snapshotId: 2, cause: 'update' };
    const stats: MarketStats = { market_type: 'perp', market_id: 0, timestamp_ns: '1', volume_24h_base_lots: '5', volume_24h_quote_lots: '100', trades_24h: '3', last_price_ticks: '64995', funding_rate_100th_bps: -10 };
    perp.stats = { status: 'resyncing', code: 'seq_jump', state: stats, seq: 3n, timestampNs: 1n, receivedAtNs: 2n, snapshotId: 1, cause: 'status' };
    perp.trades.push({ timestamp_ns: '1700000000000000000', sequence: '1', price_ticks: '64995', size_base_lots: '3', quote_notional_lots: '1', taker_is_bid: true });
    perp.tradeCount = 1;
    vm.connection = { state: 'open', reason: 'connected' };
    const latency = { p50: 1500, p90: 0, p99: 2500, p999: 0, min: 0, max: 0, count: 1, negative: 0, unit: 'us' as const };
    const modelLatency = { ...latency, p50: 300, p99: 700 };
    return { vm, label: 'test', elapsedMs: 1234, feed: { p50: 100, p99: 900, streams: 1 }, render: { latency, framesPerSecond: 10, drawsPerSecond: 5, updatesPerSecond: 9 }, modelLatency, resyncs: { total: 1, byTrigger: { seq_jump: 1 } }, faultsEnabled: true, lastFault: undefined };
  }

  it('prints one plain line with exact decimals, latency to the view model (not to a once-a-second print)', () => {
    expect(statusLine(frame())).toBe(
      't=1.2s feed=open | BTC-PERP book=live bid=64994 ask=64997 mid=64995.5 spread=3 stats=resyncing last=64995 trades=1 fundings=0 | SOL/USDC book=waiting bid=- ask=- stats=waiting last=- trades=0 | model_p50=0.3ms model_p99=0.7ms feed_p50=0.1ms feed_p99=0.9ms frames/s=10 resyncs=1 errors=0 fault=none',
    );
  });

  it.each([[120, 45], [80, 24], [50, 12]])('draws a %ix%i screen within bounds, status lines kept', (width, rows) => {
    const lines = drawScreen(frame(), width, rows);
    for (const l of lines) expect(visibleLength(l)).toBeLessThanOrEqual(width);
    if (rows >= 24) expect(lines.length).toBeLessThanOrEqual(rows);
    const text = lines.map(stripAnsi).join('\n');
    expect(text).toContain('f inject a random fault');
    expect(text).toMatch(/latency server→draw p50 1\.5ms p99 2\.5ms/);
    expect(text).toContain('book BTC-PERP live (resynced 1x)');
    if (rows >= 24) {
      expect(text).toContain('spread 3 (3 ticks)  mid 64995.5');
      expect(text).toMatch(/64999 0\.0020 +█+/);
    }
    if (rows >= 45) expect(text).toMatch(/buy +64995 +0\.0003/);
  });
});

describe('ViewMetrics', () => {
  it('measures server -> view model when an update is absorbed, apart from how often it is drawn', () => {
    const m = new ViewMetrics(0);
    const ms = 1_000_000n;
    // Absorbed 2 ms after the server stamped it; drawn (printed) up to a second later.
    m.noteUpdate(1000n * ms, 1002n * ms);
    m.noteUpdate(1500n * ms, 1502n * ms);
    m.drawn(2000n * ms);
    const s = m.summary(0);
    expect(s.modelLatency.count).toBe(2);
    expect(s.modelLatency.p99).toBeGreaterThanOrEqual(1990);
    expect(s.modelLatency.p99).toBeLessThanOrEqual(2010);
    expect(s.latency.p99).toBeGreaterThanOrEqual(990_000);
  });
});
