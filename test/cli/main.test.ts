/**
 * The `exchange-replica` entry point as a process (src/cli/main.ts through tsx): help with
 * examples and exit code 0; failures as one `error` line on stderr and a non-zero exit code.
 */
import { runTsx } from './spawnTsx';

jest.setTimeout(60_000);

const MAIN = 'src/cli/main.ts';

describe('exchange-replica (process)', () => {
  it('shows help with every command and examples', async () => {
    const r = await runTsx(MAIN, ['--help']);
    expect(r.exit.code).toBe(0);
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

  it('exits non-zero on a malformed flag', async () => {
    const r = await runTsx(MAIN, ['view', '--seed', 'abc']);
    expect(r.exit.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: option '--seed <n>' argument 'abc' is invalid\. expected an integer/);
  });
});
