/**
 * `exchange-replica watch <channel>` in process: NDJSON of replica states (bigints as
 * strings, books as top-N levels) or event records, scope flags checked against the
 * channels table, bounded by --count / --duration-ms.
 */
import { Simulator } from '../../src/simulator';
import { runProgram } from './runProgram';

jest.setTimeout(30_000);

const lines = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe('watch command', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await Simulator.start({ seed: 4 });
  });
  afterAll(async () => {
    await sim.stop();
  });

  it('prints book states as NDJSON, top --depth levels, until --count', async () => {
    const r = await runProgram(['watch', 'book', '--rest-url', sim.restUrl, '--market_id', '0', '--is_perps', '--count', '3', '--depth', '2']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const out = lines(r.stdout);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatchObject({ channel: 'book', stream: 'book|market_id=0|is_perps=true', status: 'live', cause: 'snapshot', snapshot_id: 1 });
    for (const o of out) {
      expect(o.seq).toMatch(/^\d+$/);
      expect(o.timestamp_ns).toMatch(/^\d+$/);
      expect(o.state.bids.length).toBeLessThanOrEqual(2);
      expect(o.state.asks.length).toBeLessThanOrEqual(2);
      for (const level of [...o.state.bids, ...o.state.asks]) expect(level).toEqual({ price_ticks: expect.stringMatching(/^\d+$/), size_base_lots: expect.stringMatching(/^[1-9]\d*$/) });
      expect(BigInt(o.state.bids[0].price_ticks)).toBeLessThan(BigInt(o.state.asks[0].price_ticks));
    }
    expect(BigInt(out[2]!.seq)).toBeGreaterThan(BigInt(out[0]!.seq));
  });

  it('prints event records in sequence order, and maps of account channels as arrays', async () => {
    const trades = await runProgram(['watch', 'trades', '--simulator', '--seed', '5', '--market_id', '3', '--is_perps', 'false', '--count', '3']);
    expect(trades.code).toBe(0);
    const t = lines(trades.stdout);
    expect(t.map((o) => o.kind)).toEqual(['record', 'record', 'record']);
    expect(t.map((o) => BigInt(o.sequence) - BigInt(t[0]!.sequence))).toEqual([0n, 1n, 2n]);
    expect(t[0]!.record).toMatchObject({ sequence: t[0]!.sequence, price_ticks: expect.stringMatching(/^\d+$/), taker_is_bid: expect.any(Boolean) });

    const account = sim.engine.accounts[1]!;
    const balances = await runProgram(['watch', 'balances', '--rest-url', sim.restUrl, '--address', account.address, '--subaccount_id', '0', '--count', '1']);
    expect(balances.code).toBe(0);
    const b = lines(balances.stdout)[0]!;
    expect(b).toMatchObject({ channel: 'balances', status: 'live', cause: 'snapshot' });
    expect(b.state.map((x: { token_id: string }) => x.token_id).sort()).toEqual(['BTC', 'SOL', 'USDC']);
  });

  it('keeps the newest --depth candles and stops after --duration-ms', async () => {
    const r = await runProgram(['watch', 'candles', '--rest-url', sim.restUrl, '--market_id', '0', '--is_perps', '--interval', '1m', '--depth', '3', '--duration-ms', '1500']);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out.length).toBeGreaterThanOrEqual(1);
    for (const o of out) {
      expect(o.state.length).toBeLessThanOrEqual(3);
      expect(o.state[o.state.length - 1]).toMatchObject({ open_time_ms: expect.any(Number), close: expect.stringMatching(/^\d+$/) });
    }
  });

  it('rejects a wrong scope, an unknown channel or no target with one error line', async () => {
    const extra = await runProgram(['watch', 'fundingRates', '--simulator', '--market_id', '0', '--is_perps']);
    expect(extra).toEqual({ code: 2, stdout: '', stderr: 'error ERR_CLI_USAGE: --is_perps: is_perps is not a scope key of channel fundingRates (scope keys: market_id)\n' });

    const missing = await runProgram(['watch', 'book', '--simulator', '--is_perps']);
    expect(missing.stderr).toBe('error ERR_CLI_USAGE: --market_id: market_id is required for channel book (scope keys: market_id, is_perps)\n');

    const unknown = await runProgram(['watch', 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/value 'nope' is invalid for argument 'channel'. Allowed choices are book, bbo, trades/);

    const noTarget = await runProgram(['watch', 'bbo', '--market_id', '0', '--is_perps']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toMatch(/^error ERR_CLI_USAGE: give --rest-url/);

    const refused = await runProgram(['watch', 'balances', '--rest-url', sim.restUrl, '--address', '11111111111111111111111111111111', '--subaccount_id', '0', '--duration-ms', '20000']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error INVALID_SUBSCRIPTION: .*unknown account/m);
  });
});
