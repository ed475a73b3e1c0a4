/**
 * `exchange-replica rest <operation>` in process: parameters as documented flags, the JSON
 * answer on stdout, and one `error <code>: ...` line with exit code 2 (bad parameter or
 * usage) or 1 (the server said no) on failure.
 */
import { Simulator } from '../../src/simulator';
import { runProgram } from './runProgram';

describe('rest command', () => {
  let sim: Simulator;
  const savedEnv = process.env.EXCHANGE_REST_URL;
  beforeAll(async () => {
    delete process.env.EXCHANGE_REST_URL;
    sim = await Simulator.start({ seed: 3, paused: true });
  });
  afterAll(async () => {
    await sim.stop();
    if (savedEnv !== undefined) process.env.EXCHANGE_REST_URL = savedEnv;
  });

  it('prints the answer of an operation, equal to the simulator truth', async () => {
    const r = await runProgram(['rest', 'orderBook', '--rest-url', sim.restUrl, '--market_type', 'perp', '--market_id', '0', '--depth', '5']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const out = JSON.parse(r.stdout);
    const truth = sim.truth('orderBook', { market_type: 'perp', market_id: 0, depth: 5 }).body as { data: unknown; sequence: string };
    expect(out.data).toEqual(truth.data);
    expect(out.sequence).toBe(truth.sequence);
  });

  it('fills path parameters and runs against an embedded simulator with --simulator', async () => {
    const r = await runProgram(['rest', 'marketUnversioned', '--simulator', '--market_id', '1']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ market_id: 1, symbol: 'ETH-PERP' });
  });

  it('reports a bad parameter with exit code 2, and a server refusal with exit code 1', async () => {
    const bad = await runProgram(['rest', 'bbo', '--rest-url', sim.restUrl, '--market_type', 'perp', '--market_id', 'x']);
    expect(bad).toEqual({ code: 2, stdout: '', stderr: `error ERR_INVALID_PARAMETER: bbo: invalid parameter 'market_id': expected an integer from 0 to 2147483647, got "x"\n` });

    const missing = await runProgram(['rest', 'orders', '--rest-url', sim.restUrl, '--address', sim.engine.accounts[0]!.address, '--subaccount_id', '0', '--status', 'active']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error ERR_INVALID_PARAMETER: orders: missing parameter 'limit'/);

    const unknown = await runProgram(['rest', 'bbo', '--rest-url', sim.restUrl, '--market_type', 'perp', '--market_id', '99']);
    expect(unknown.code).toBe(1);
    // The server's code is in the message; the line's code is the library's (ERR_REST_API).
    expect(unknown.stderr).toMatch(/^error ERR_REST_API: bbo: .*\(HTTP 404, NOT_FOUND\)\n$/);
  });

  it('needs a target, checks URLs, and shows help with examples', async () => {
    const none = await runProgram(['rest', 'status']);
    expect(none).toEqual({ code: 2, stdout: '', stderr: 'error ERR_CLI_USAGE: give --rest-url <url> (or EXCHANGE_REST_URL) for a real exchange, or --simulator for an embedded one\n' });

    const badUrl = await runProgram(['rest', 'status', '--rest-url', 'ftp://x']);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/^error ERR_CLI_USAGE: option '--rest-url <url>' argument 'ftp:\/\/x' is invalid\. expected a http or https URL such as http:\/\/127\.0\.0\.1:8080 \(see exchange-replica rest status --help\)\n$/);

    const help = await runProgram(['rest', 'orderBook', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--depth <value>\s+an integer from 1 to 500 \(required\)/);
    expect(help.stdout).toContain('exchange-replica rest orderBook --rest-url http://127.0.0.1:8080 --market_type perp --market_id 0 --depth 10');
  });
});
