/**
 * The `exchange-replica` entry point as a process (src/cli/main.ts through tsx): help with
 * examples and --version on stdout with exit code 0; failures as one `error` line on stderr
 * and a non-zero exit code, 2 for every usage problem.
 */
import { PACKAGE_VERSION, runProgram } from './runProgram';
import { runTsx } from './spawnTsx';

jest.setTimeout(120_000);

const MAIN = 'src/cli/main.ts';

describe('exchange-replica (process)', () => {
  it('shows help with every command and examples', async () => {
    const r = await runTsx(MAIN, ['--help']);
    expect(r.exit.code).toBe(0);
    expect(r.stderr).toBe('');
    const text = r.lines.join('\n');
    for (const c of ['view', 'simulate', 'rest', 'watch']) expect(text).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(text).toContain('Examples:');
  });

  it('exits 2 with one error line for a bad parameter or an unknown market', async () => {
    const bad = await runTsx(MAIN, ['rest', 'bbo', '--simulator', '--market_type', 'perp', '--market_id', 'x']);
    expect(bad.exit.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([`error ERR_INVALID_PARAMETER: bbo: invalid parameter 'market_id': expected an integer from 0 to 2147483647, got "x"`]);

    const market = await runTsx(MAIN, ['view', '--perp', '3', '--duration-ms', '60000']);
    expect(market.exit.code).toBe(2);
    expect(market.stderr.trim()).toBe('error ERR_CLI_USAGE: no perp market with id 3; perp markets: 0 (BTC-PERP), 1 (ETH-PERP), 2 (SOL-PERP)');
  });

  it('prints its version from package.json (--version, -V), exit 0', async () => {
    const [long, short] = await Promise.all([runTsx(MAIN, ['--version']), runTsx(MAIN, ['-V'])]);
    for (const r of [long, short]) {
      expect(r.exit.code).toBe(0);
      expect(r.lines.filter(Boolean)).toEqual([PACKAGE_VERSION]);
      expect(r.stderr).toBe('');
    }
  });

  // Every usage problem, in process (the same runCli as the entry point: fast).
  it.each<[string[], RegExp]>([
    [['watch', 'book', '--market_typ', 'perp'], /^unknown option '--market_typ' for exchange-replica watch; accepted: --market_id, --market_type, .*--help; did you mean --market_type\? \(see exchange-replica watch --help\)$/],
    [['--nope'], /^unknown option '--nope' for exchange-replica; accepted: --version, --help /],
    [['wach'], /^unknown command 'wach' for exchange-replica; commands: view, simulate, rest, watch, relay, record, replay; did you mean watch\? /],
    [['help', 'nope'], /^unknown command 'nope' for exchange-replica; commands: view, simulate, rest, watch, relay, record, replay /],
    [['rest', 'nope'], /^unknown command 'nope' for exchange-replica rest; commands: candles, .*orderBook, /],
    [[], /^missing command for exchange-replica; commands: view, simulate, rest, watch, relay, record, replay /],
    [['rest'], /^missing command for exchange-replica rest; commands: candles, /],
    [['watch'], /^missing required argument 'channel' of exchange-replica watch; one of: book, bbo, trades, /],
    [['watch', 'book', 'bbo'], /^too many arguments for 'watch'\. Expected 1 argument but got 2 \(see exchange-replica watch --help\)$/],
    [['rest', 'status', '--rest-url', 'not a url'], /^option '--rest-url <url>' argument 'not a url' is invalid\. expected a http or https URL such as http:\/\/127\.0\.0\.1:8080 /],
    [['view', '--seed', 'abc'], /^option '--seed <n>' argument 'abc' is invalid\. expected an integer from -2147483648 to 4294967295 \(see exchange-replica view --help\)$/],
    [['view', '--seed'], /^option '--seed <n>' argument missing /],
    [['simulate', '--port', '70000'], /^option '--port <n>' argument '70000' is invalid\. expected an integer from 0 to 65535 /],
  ])('usage problem %j: one ERR_CLI_USAGE line naming what is accepted, exit 2', async (args, message) => {
    const r = await runProgram(args);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^error ERR_CLI_USAGE: [^\n]*\n$/);
    expect(r.stderr.trimEnd().slice('error ERR_CLI_USAGE: '.length)).toMatch(message);
  });

  it('reports usage problems the same way as a process: one line, exit 2', async () => {
    const cases = [['watch', 'book', '--nope'], ['nope'], ['watch'], ['rest', 'status', '--rest-url', 'ftp://x'], ['view', '--seed', 'abc']];
    const results = await Promise.all(cases.map((args) => runTsx(MAIN, args, 60_000)));
    results.forEach((r, i) => {
      const lines = r.stderr.split('\n').filter(Boolean);
      expect({ args: cases[i], code: r.exit.code, stdout: r.lines.filter(Boolean), lines: lines.length }).toEqual({ args: cases[i], code: 2, stdout: [], lines: 1 });
      expect(lines[0]).toMatch(/^error ERR_CLI_USAGE: \S/);
    });
  });

  it('shows the help of a command on stdout with exit code 0', async () => {
    const r = await runTsx(MAIN, ['watch', '--help']);
    expect(r.exit.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.lines[0]).toBe('Usage: exchange-replica watch [options] <channel>');
  });
});
