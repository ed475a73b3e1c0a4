/**
 * examples/marketMaker.ts runs a few seconds against its embedded simulator: it reads book
 * updates, places and replaces quotes, and its closing inventory is the last one the
 * account replica reported.
 */
import { runTsx } from '../cli/spawnTsx';

it('quotes around the mid and tracks its inventory', async () => {
  const { exit, lines, stderr } = await runTsx('examples/marketMaker.ts', ['--duration-ms', '4000']);
  expect({ code: exit.code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(lines.some((l) => /\] quoting BTC-PERP as \w+\/\d+: 0\.001 a side, 2 ticks from the mid$/.test(l))).toBe(true);
  const summary = /marketMaker: (\d+) book updates read, (\d+) quotes placed, (\d+) cancelled, (\d+) fills, inventory (-?[\d.]+) BTC$/.exec(lines[lines.length - 1]!);
  expect(summary).not.toBeNull();
  const [, read, placed, cancelled, fills, inventory] = summary!;
  expect(Number(read)).toBeGreaterThan(0);
  expect(Number(placed)).toBeGreaterThan(0);
  expect(Number(cancelled)).toBeLessThanOrEqual(Number(placed));
  expect(lines.filter((l) => /\] quote (bid|ask) 0\.001 @ \d+( \(was \d+\))?$/.test(l)).length).toBeGreaterThan(0);
  expect(lines.filter((l) => /\] FILL (bought|sold) /.test(l))).toHaveLength(Number(fills));
  expect(lines.some((l) => /order refused|client error/.test(l))).toBe(false);
  const changes = lines.filter((l) => /\] inventory -?[\d.]+ -> -?[\d.]+ BTC$/.test(l));
  const last = changes.length ? /-> (-?[\d.]+) BTC$/.exec(changes[changes.length - 1]!)![1] : '0';
  expect(inventory).toBe(last);
});
