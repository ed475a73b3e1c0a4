/**
 * examples/latencyProbe.ts runs a few seconds against its embedded simulator and prints the
 * client's latency and staleness percentiles per stream.
 */
import { runTsx } from '../cli/spawnTsx';

it('prints latency and staleness per stream', async () => {
  const { exit, lines, stderr } = await runTsx('examples/latencyProbe.ts', ['--duration-ms', '4000', '--every-ms', '1000', '--stall-ms', '500']);
  expect({ code: exit.code, stderr }).toEqual({ code: 0, stderr: '' });
  expect(lines.some((l) => /\] perp book stream stalled for 500 ms$/.test(l))).toBe(true);
  expect(lines.some((l) => /\] \d+ streams, \d+ updates so far, worst latency p99 \d+\.\d\d ms$/.test(l))).toBe(true);
  const head = lines.findIndex((l) => /\] stream +updates  latency ms: p50 +p99 +max  \| staleness ms: p50 +p99 +max$/.test(l));
  expect(head).toBeGreaterThan(0);
  const rows = lines.slice(head + 1, -1);
  const number = String.raw`\d+\.\d\d`;
  const row = new RegExp(String.raw`\] (\S+) +(\d+) +(${number}) +(${number}) +(${number})  \| +(${number}) +(${number}) +(${number})$`);
  for (const r of rows) expect(r).toMatch(row);
  const streams = rows.map((r) => row.exec(r)![1]);
  expect(streams).toEqual(expect.arrayContaining(['book|market_id=0|is_perps=true', 'book|market_id=3|is_perps=false']));
  for (const r of rows) {
    const [, , count, p50, p99, max] = row.exec(r)!.map(String);
    expect(Number(count)).toBeGreaterThan(0);
    expect(Number(p50)).toBeLessThanOrEqual(Number(p99));
    expect(Number(p99)).toBeLessThanOrEqual(Number(max));
  }
  expect(lines[lines.length - 1]).toMatch(new RegExp(String.raw`\] latencyProbe: ${rows.length} streams, \d+ updates measured$`));
});
