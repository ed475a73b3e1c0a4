/**
 * examples/tradingBot.ts runs a few seconds against its embedded simulator: it sees trades,
 * logs each decision, and its closing paper position agrees with the decisions it logged.
 */
import { runTsx } from '../cli/spawnTsx';

it('trades on paper from momentum and summarises', async () => {
  const { exit, lines, stderr } = await runTsx('examples/tradingBot.ts', ['--duration-ms', '4000', '--seed', '2']);
  expect({ code: exit.code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(lines[0]).toMatch(/^\[\s*\d+\.\d\ds\] tradingBot: simulator seed 2 at http:\/\/127\.0\.0\.1:\d+, running 4000 ms$/);
  const summary = /tradingBot: (\d+) trades seen, (\d+) gaps, (\d+) decisions, paper position (-?[\d.]+) BTC, paper PnL (-?[\d.]+) USDC$/.exec(lines[lines.length - 1]!);
  expect(summary).not.toBeNull();
  const [, seen, , decisions, position] = summary!;
  expect(Number(seen)).toBeGreaterThan(0);
  const decided = lines.filter((l) => /\] (BUY|SELL) /.test(l));
  expect(decided).toHaveLength(Number(decisions));
  for (const l of decided) expect(l).toMatch(/\] (BUY|SELL) +0\.001 BTC-PERP @ \d+ \((ask|bid)\); fast - slow = -?\d+\.\d\d ticks; position -?[\d.]+$/);
  // Each decision moves the paper position by 0.001 BTC (10 lots): the summary is their sum.
  const lots = decided.reduce((n, l) => n + (/\] BUY /.test(l) ? 10 : -10), 0);
  expect(Math.round(Number(position) * 10_000)).toBe(lots);
});
