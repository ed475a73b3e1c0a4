/**
 * `exchange-replica watch <channel>` in process: NDJSON of replica states (bigints as
 * strings, books as top-N levels) or event records, scope flags checked against the
 * channels table, bounded by --count / --duration-ms.
 */
import { Simulator } from '../../src/simulator';
import { runProgram } from './runProgram';

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
    const r = await runProgram(['watch', 'book', '--rest-url', sim.restUrl, '--market_id', '0', '--market_type', 'perp', '--count', '3', '--depth', '2']);
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
    const trades = await runProgram(['watch', 'trades', '--simulator', '--seed', '5', '--market_id', '3', '--market_type', 'spot', '--count', '3']);
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
    const r = await runProgram(['watch', 'candles', '--rest-url', sim.restUrl, '--market_id', '0', '--market_type', 'perp', '--interval', '1m', '--depth', '3', '--duration-ms', '1500']);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out.length).toBeGreaterThanOrEqual(1);
    for (const o of out) {
      expect(o.state.length).toBeLessThanOrEqual(3);
      expect(o.state[o.state.length - 1]).toMatchObject({ open_time_ms: expect.any(Number), close: expect.stringMatching(/^\d+$/) });
    }
  });

  it('takes the market type as REST names it (--market_type perp|spot), or as the feed does (--is_perps)', async () => {
    const spot = await runProgram(['watch', 'bbo', '--rest-url', sim.restUrl, '--market_id', '3', '--market_type', 'spot', '--count', '1']);
    const alias = await runProgram(['watch', 'bbo', '--rest-url', sim.restUrl, '--market_id', '3', '--is_perps', 'false', '--count', '1']);
    expect(spot).toMatchObject({ code: 0, stderr: '' });
    expect(alias).toMatchObject({ code: 0, stderr: '' });
    expect(lines(spot.stdout)[0]).toMatchObject({ channel: 'bbo', stream: 'bbo|market_id=3|is_perps=false' });
    expect(lines(alias.stdout)[0]!.stream).toBe('bbo|market_id=3|is_perps=false');

    const both = await runProgram(['watch', 'bbo', '--rest-url', sim.restUrl, '--market_id', '3', '--market_type', 'spot', '--is_perps', 'false', '--count', '1']);
    expect(both.code).toBe(0);
    const disagree = await runProgram(['watch', 'bbo', '--simulator', '--market_id', '3', '--market_type', 'spot', '--is_perps']);
    expect(disagree).toEqual({ code: 2, stdout: '', stderr: 'error ERR_CLI_USAGE: --market_type spot and --is_perps true disagree: give one of them (scope flags of bbo: --market_id --market_type perp|spot)\n' });
    const bad = await runProgram(['watch', 'bbo', '--simulator', '--market_id', '3', '--market_type', 'future']);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: "error ERR_CLI_USAGE: option '--market_type <type>' argument 'future' is invalid. Allowed choices are perp, spot (see exchange-replica watch --help)\n" });

    const help = await runProgram(['watch', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}book {10}--market_id --market_type perp\|spot$/m);
    expect(help.stdout).toMatch(/--is_perps \[boolean\]/);
  });

  it('prints a refusal of the server once, as the error line', async () => {
    const r = await runProgram(['watch', 'bbo', '--rest-url', sim.restUrl, '--market_id', '999', '--market_type', 'perp', '--duration-ms', '20000']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error INVALID_SUBSCRIPTION: .*unknown perp market 999.*\n$/);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('rejects a wrong scope, an unknown channel or no target with one error line', async () => {
    const extra = await runProgram(['watch', 'fundingRates', '--simulator', '--market_id', '0', '--is_perps']);
    expect(extra).toEqual({ code: 2, stdout: '', stderr: 'error ERR_CLI_USAGE: --is_perps: channel fundingRates is perp-only and takes no market type (scope flags of fundingRates: --market_id)\n' });

    const missing = await runProgram(['watch', 'book', '--simulator', '--market_type', 'perp']);
    expect(missing.stderr).toBe('error ERR_CLI_USAGE: --market_id is required for channel book (scope flags of book: --market_id --market_type perp|spot)\n');
    const noType = await runProgram(['watch', 'book', '--simulator', '--market_id', '0']);
    expect(noType).toEqual({ code: 2, stdout: '', stderr: 'error ERR_CLI_USAGE: --market_type is required for channel book (scope flags of book: --market_id --market_type perp|spot)\n' });
    const notScope = await runProgram(['watch', 'balances', '--simulator', '--address', sim.engine.accounts[0]!.address, '--subaccount_id', '0', '--market_type', 'spot']);
    expect(notScope.stderr).toBe('error ERR_CLI_USAGE: --market_type is not a scope flag of channel balances (scope flags of balances: --address --subaccount_id)\n');

    const unknown = await runProgram(['watch', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error ERR_CLI_USAGE: command-argument value 'nope' is invalid for argument 'channel'. Allowed choices are book, bbo, trades.* \(see exchange-replica watch --help\)\n$/);

    const noTarget = await runProgram(['watch', 'bbo', '--market_id', '0', '--is_perps']);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toMatch(/^error ERR_CLI_USAGE: give --rest-url/);

    const refused = await runProgram(['watch', 'balances', '--rest-url', sim.restUrl, '--address', '11111111111111111111111111111111', '--subaccount_id', '0', '--duration-ms', '20000']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error INVALID_SUBSCRIPTION: .*unknown account/m);
  });
});
