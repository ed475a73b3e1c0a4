/**
 * `exchange-replica view` (what `npm start` runs) in a child process with stdout not a
 * terminal: it prints one line a second; keys come from the piped stdin. Against the
 * embedded simulator (books go live, `f` injects a fault that the replicas heal, `q`
 * quits cleanly) and against a "real" exchange (a simulator in this process) where `f`
 * does nothing. Ending by duration and SIGINT: viewExit.test.ts.
 */
import { Simulator } from '../../src/simulator';
import { TsxChild } from './spawnTsx';

const MAIN = 'src/cli/main.ts';

/** `key=value` words of a status line: the head, and each group by its first word (`BTC-PERP`, ...). */
function parse(line: string): { head: Record<string, string>; groups: Record<string, Record<string, string>> } {
  const words = (ws: string[]) => Object.fromEntries(ws.filter((w) => w.includes('=')).map((w) => w.split('=', 2) as [string, string]));
  const [head = '', ...rest] = line.split(' | ');
  const groups: Record<string, Record<string, string>> = {};
  for (const g of rest) {
    const [name = '', ...ws] = g.split(' ');
    groups[name] = words(ws);
  }
  return { head: words(head.split(' ')), groups };
}

const isStatus = (l: string) => l.startsWith('t=');
const allLive = (l: string): boolean => {
  if (!isStatus(l)) return false;
  const { groups } = parse(l);
  return groups['BTC-PERP']?.book === 'live' && groups['SOL/USDC']?.book === 'live' && /account=live/.test(l);
};

describe('view, stdout not a terminal', () => {
  let child: TsxChild | undefined;
  let sim: Simulator | undefined;
  afterEach(async () => {
    await child?.stop();
    await sim?.stop();
    child = undefined;
    sim = undefined;
  });

  it('prints one line a second, heals after f, quits on q', async () => {
    child = new TsxChild(MAIN, ['view', '--seed', '1', '--duration-ms', '80000']);
    const header = await child.waitForLine((l) => l.startsWith('view: '), 'the header line');
    expect(header).toMatch(/^view: simulator seed 1 at http:\/\/127\.0\.0\.1:\d+; markets BTC-PERP, SOL\/USDC; account \S+\/\d+; one line a second$/);

    const live = await child.waitForLine(allLive, 'both books and the account live');
    const { head, groups } = parse(live);
    expect(head.feed).toBe('open');
    const perp = groups['BTC-PERP']!;
    // Exact decimals from the market records: BTC-PERP has one-unit ticks, SOL/USDC 0.001.
    expect(perp.bid).toMatch(/^\d+$/);
    expect(BigInt(perp.ask!)).toBeGreaterThan(BigInt(perp.bid!));
    expect(groups['SOL/USDC']!.bid).toMatch(/^\d+\.\d{3}$/);
    expect(live).toMatch(/model_p50=\d+\.\dms model_p99=\d+\.\dms feed_p50=\d+\.\dms feed_p99=\d+\.\dms frames\/s=\d+ resyncs=0 errors=0 fault=none$/);

    // Seed 1: the first fault drawn skips book updates, so the replica must resync and heal.
    const from = child.lines.length;
    child.write('f');
    const faulted = await child.waitForLine((l) => isStatus(l) && !/fault=none/.test(l), 'a line naming the fault', 30_000, from);
    const kind = /fault=(\w+)/.exec(faulted)![1]!;
    expect(['resyncStream', 'skipSilently', 'stallStream', 'dropAll', 'stallConnection', 'delayFrames']).toContain(kind);
    expect(kind).toBe('skipSilently');
    await child.waitForLine((l) => allLive(l) && Number(/resyncs=(\d+)/.exec(l)![1]) >= 1, 'a resync, then everything live again', 30_000, from);

    child.write('q');
    const exit = await child.waitForExit();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(child.lines[child.lines.length - 1]).toMatch(/^view stopped after \d+\.\ds: resyncs [1-9]\d*, errors \d+, server→model p50 \d+\.\dms p99 \d+\.\dms$/);
    expect(child.stderr).not.toMatch(/error/i);
  });

  it('shows a "real" exchange given by --rest-url, where f injects nothing', async () => {
    sim = await Simulator.start({ seed: 2 });
    child = new TsxChild(MAIN, ['view', '--rest-url', sim.restUrl, '--perp', '1', '--spot', '4', '--duration-ms', '80000']);
    const header = await child.waitForLine((l) => l.startsWith('view: '), 'the header line');
    expect(header).toBe(`view: ${sim.restUrl}; markets ETH-PERP, BTC/USDC; one line a second`);
    await child.waitForLine((l) => isStatus(l) && /ETH-PERP book=live/.test(l) && /BTC\/USDC book=live/.test(l), 'both books live');
    const from = child.lines.length;
    child.write('f');
    await child.waitForLine(isStatus, 'one more line', 30_000, from);
    child.write('q');
    expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
    expect(child.lines.filter(isStatus).every((l) => l.endsWith('fault=none'))).toBe(true);
    expect(sim.faults.stats().total).toBe(0);
  });
});
