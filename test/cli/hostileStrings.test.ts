/**
 * Strings the exchange chooses never drive the terminal (issue item 13). An exchange (a real
 * simulator behind RewritingExchange) names its perp market with OSC 52 (clipboard write),
 * OSC 0 (window title) and `ESC [2J` (clear screen), its quote token with 8-bit C1 controls
 * (CSI, OSC, ST) and a bidi override, and puts the same into its error messages. `rest`,
 * `watch` and `view` (lines on a pipe, and the screens drawn on a real pseudo-terminal) run
 * against it: their stdout and stderr hold none of those characters, and show the names with
 * the characters made visible (JSON output: escaped, so the value is intact). The CLI's own
 * escape sequences (cursor moves, colours) on a terminal are allowed.
 */
import { Simulator } from '../../src/simulator';
import { hasScript, PtyChild } from './ptyChild';
import { RewritingExchange } from './RewritingExchange';
import { runProgram } from './runProgram';
import { TsxChild } from './spawnTsx';

jest.setTimeout(120_000);

const OSC52 = '\x1b]52;c;SGFja2Vk\x07';
const OSC0 = '\x1b]0;pwned\x07';
const CLEAR = '\x1b[2J';
/** 8-bit CSI `2J`, 8-bit OSC 0 ended by 8-bit ST, then RIGHT-TO-LEFT OVERRIDE: JSON.stringify leaves all of these raw. */
const C1 = '\x9b2J\x9d0;t\x9c\u202e';

const PERP = `BTC${OSC52}${OSC0}${CLEAR}-PERP`;
const USDC = `US${C1}DC`;
const UNKNOWN = `unknown${OSC0}${CLEAR}${C1}`;
/** How the CLI shows them on a line (safeText.ts). */
const SHOWN_PERP = 'BTC␛]52;c;SGFja2Vk␇␛]0;pwned␇␛[2J-PERP';
const SHOWN_USDC = 'US\ufffd2J\ufffd0;t\ufffd\ufffdDC';
const SHOWN_UNKNOWN = 'unknown␛]0;pwned␇␛[2J\ufffd2J\ufffd0;t\ufffd\ufffd';

/** A control character the CLI never writes itself: BEL, C1, bidi controls. */
const FOREIGN = /[\x07\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** An ESC that does not start a CSI sequence (the CLI writes CSI only), or the injected clear-screen. */
const FOREIGN_ESC = /\x1b(?!\[[0-9;?]*[A-Za-z])|\x1b\[2J/g;

/** `text` as JSON with C1 and bidi controls escaped too (a failure message must not drive the terminal either). */
const escape = (text: string): string => JSON.stringify(text).replace(/[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Up to 5 places where `text` holds an injected control character, each with some context (escaped): none is expected. */
function injected(text: string, ownCsi: boolean): string[] {
  const hits: string[] = [];
  for (const re of [FOREIGN, ownCsi ? FOREIGN_ESC : /\x1b/g]) {
    for (const m of text.matchAll(re)) {
      if (hits.length >= 5) break;
      hits.push(escape(text.slice(Math.max(0, m.index - 20), m.index + 20)));
    }
  }
  return hits;
}

describe('exchange strings with terminal control characters', () => {
  let sim: Simulator;
  let exchange: RewritingExchange;
  let address: string;
  beforeAll(async () => {
    sim = await Simulator.start({ seed: 4 });
    exchange = await RewritingExchange.start(sim, [
      { word: 'BTC-PERP', hostile: PERP },
      { word: 'USDC', hostile: USDC },
      { word: 'unknown', hostile: UNKNOWN },
    ]);
    address = sim.engine.accounts[1]!.address;
  });
  afterAll(async () => {
    await exchange.stop();
    await sim.stop();
  });

  describe('rest', () => {
    it('prints the JSON answer with every control character escaped, the value intact', async () => {
      const r = await runProgram(['rest', 'markets', '--rest-url', exchange.url, '--market_type', 'all']);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(injected(r.stdout, false)).toEqual([]);
      const symbols = (JSON.parse(r.stdout) as { data: { symbol: string; quote_token: string }[] }).data.map((m) => m.symbol);
      expect(symbols).toContain(PERP);
      expect(symbols).toContain(`SOL/${USDC}`);
    });

    it("prints the server's error message with its control characters made visible", async () => {
      const r = await runProgram(['rest', 'bbo', '--rest-url', exchange.url, '--market_type', 'perp', '--market_id', '99']);
      expect(r.code).toBe(1);
      expect(injected(r.stderr, false)).toEqual([]);
      expect(r.stderr).toMatch(/^error \w+: bbo: /);
      expect(r.stderr).toContain(`: bbo: ${SHOWN_UNKNOWN} perp market 99 (HTTP 404, NOT_FOUND)\n`);
    });
  });

  describe('watch', () => {
    it('prints NDJSON with every control character escaped, the value intact', async () => {
      const r = await runProgram(['watch', 'balances', '--rest-url', exchange.url, '--address', address, '--subaccount_id', '0', '--count', '1']);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      expect(injected(r.stdout, false)).toEqual([]);
      const state = (JSON.parse(r.stdout) as { state: { token_id: string }[] }).state;
      expect(state.map((b) => b.token_id)).toContain(USDC);
    });

    it("prints the server's refusal with its control characters made visible", async () => {
      const r = await runProgram(['watch', 'bbo', '--rest-url', exchange.url, '--market_id', '999', '--market_type', 'perp', '--duration-ms', '60000']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(injected(r.stderr, false)).toEqual([]);
      expect(r.stderr).toMatch(/^error INVALID_SUBSCRIPTION: /);
      expect(r.stderr).toContain(`refused by the server: ${SHOWN_UNKNOWN} perp market 999 for channel bbo\n`);
    });
  });

  describe('view, stdout not a terminal', () => {
    let child: TsxChild | undefined;
    afterEach(async () => {
      await child?.stop();
      child = undefined;
    });

    it('prints its banner and status lines with the names made visible', async () => {
      child = new TsxChild('src/cli/main.ts', ['view', '--rest-url', exchange.url, '--duration-ms', '100000']);
      const header = await child.waitForLine((l) => l.startsWith('view: '), 'the header line');
      await child.waitForLine((l) => l.startsWith('t=') && /-PERP book=live/.test(l), 'a status line with the perp book live');
      child.write('q');
      expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
      expect(injected(`${child.lines.join('\n')}\n${child.stderr}`, false)).toEqual([]);
      expect(header).toBe(`view: ${exchange.url}; markets ${SHOWN_PERP}, SOL/${SHOWN_USDC}; one line a second`);
      expect(child.lines.find((l) => l.startsWith('t='))).toContain(`| ${SHOWN_PERP} book=`);
    });
  });

  // The screens are drawn only on a terminal: a real pty through util-linux `script`.
  const onPty = hasScript() ? describe : describe.skip;
  onPty('screens on a terminal', () => {
    let child: PtyChild | undefined;
    afterEach(async () => {
      await child?.stop();
      child = undefined;
    });

    it('view: market panel, account panel and status lines show the names made visible', async () => {
      child = new PtyChild(['view', '--rest-url', exchange.url, '--address', address, '--subaccount-id', '0', '--duration-ms', '100000']);
      // Matches the names drawn raw or made visible: the assertions below tell which.
      await child.waitFor(/BTC.\]52;c;SGFja2Vk.{1,40}-PERP/);
      await child.waitFor(/US.{1,6}2J.{1,6}0;t.{1,6}DC [0-9]/);
      child.write('q');
      expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
      expect(injected(child.output, true)).toEqual([]);
      expect(child.output).toContain(SHOWN_PERP);
      expect(child.output).toContain(SHOWN_USDC);
      // The CLI's own drawing is still there: alternate screen, cursor home.
      expect(child.output).toContain('\x1b[?1049h');
      expect(child.output).toContain('\x1b[H');
    });

    it('watch: the state drawn in place has every control character escaped', async () => {
      child = new PtyChild(['watch', 'balances', '--rest-url', exchange.url, '--address', address, '--subaccount_id', '0', '--duration-ms', '100000']);
      await child.waitFor(/US.{1,6}2J.{1,6}0;t.{1,12}DC/);
      child.write('q');
      expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
      expect(injected(child.output, true)).toEqual([]);
      expect(child.output).toContain(escape(USDC));
    });
  });
});
