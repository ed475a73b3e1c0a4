/**
 * examples/backtest.ts: the market maker's logic runs live against its embedded simulator
 * (recorded), then over the recording at full speed; both runs read the same book states, so
 * their summaries agree.
 */
import { runTsx } from '../cli/spawnTsx';

jest.setTimeout(120_000);

it('runs the same strategy live and over the recording, with the same result', async () => {
  const { exit, lines, stderr } = await runTsx('examples/backtest.ts', ['--duration-ms', '3000'], 100_000);
  expect({ code: exit.code, stderr }).toEqual({ code: 0, stderr: '' });
  const summary = /^(live|backtest): (\d+ book updates read, \d+ quotes placed, \d+ cancelled, \d+ fills, inventory -?\d+ lots, paper PnL -?[\d.]+ ticks x lots) \(/;
  const live = lines.map((l) => summary.exec(l)).find((m) => m?.[1] === 'live');
  const backtest = lines.map((l) => summary.exec(l)).find((m) => m?.[1] === 'backtest');
  expect(live).toBeDefined();
  expect(backtest).toBeDefined();
  expect(Number(/^(\d+)/.exec(live![2]!)![1])).toBeGreaterThan(0);
  expect(backtest![2]).toBe(live![2]);
  expect(lines.at(-1)).toMatch(/^backtest: .* \([\d.]+ s recorded replayed in \d+ ms, \d+ updates\)$/);
});
