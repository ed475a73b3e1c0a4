/**
 * The README's five-minute tour, run as a program exactly as printed there: the code block is
 * read from README.md, its package imports pointed at the sources, and the output checked
 * against what the README says it prints.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { TsxChild, ROOT } from '../cli/spawnTsx';

function tourSource(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A five-minute tour'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README: no ```ts block under "A five-minute tour"');
  return block[1]!
    .replace(/from 'exchange-replica\/simulator'/g, `from ${JSON.stringify(join(ROOT, 'src/simulator/index.ts'))}`)
    .replace(/from 'exchange-replica'/g, `from ${JSON.stringify(join(ROOT, 'src/index.ts'))}`);
}

let dir: string | undefined;
let child: TsxChild | undefined;
afterEach(async () => {
  await child?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('prints each step the README says it prints, and exits by itself', async () => {
  dir = mkdtempSync(join(tmpdir(), 'tour-'));
  const file = join(dir, 'tour.mts');
  writeFileSync(file, tourSource());
  child = new TsxChild(relative(ROOT, file), []);
  const exit = await child.exited;
  const out = child.lines;
  expect({ code: exit.code, stderr: child.stderr }).toEqual({ code: 0, stderr: '' });
  const at = (re: RegExp) => out.findIndex((l) => re.test(l));
  const live1 = at(/^book is live \(snapshot 1\)$/);
  const best = at(/^best bid \d+(\.\d+)?, best ask \d+(\.\d+)?$/);
  const stale = at(/^book is stale \(snapshot 1\)$/);
  const live2 = at(/^book is live \(snapshot 2\)$/);
  const healed = at(/^healed: [1-9]\d* resync after the disconnect$/);
  // The first emission is the first snapshot: a replica emits once it has a state to show.
  expect(live1).toBe(0);
  expect([best, stale, live2, healed].every((i) => i > 0)).toBe(true);
  expect(live1 < best && best < stale && stale < live2 && live2 < healed).toBe(true);
  // Three bid levels, best first, each with a decimal price and size.
  const bids = out.slice(best + 1, best + 4);
  expect(bids).toHaveLength(3);
  for (const l of bids) expect(l).toMatch(/^ {2}bid \d+(\.\d+)? x \d+(\.\d+)?$/);
  const prices = bids.map((l) => Number(/bid (\S+)/.exec(l)![1]));
  expect([...prices].sort((a, b) => b - a)).toEqual(prices);
  expect(Number(/best bid (\S+),/.exec(out[best]!)![1])).toBe(prices[0]);
});
