/**
 * `exchange-replica record` and `exchange-replica replay` in child processes: a recording
 * with random faults replays to the end with every frame; a recorder killed with SIGKILL
 * (no chance to flush or end its session) leaves a file that replays up to its last chunk;
 * usage errors are one line, exit code 2.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTsx, TsxChild } from '../cli/spawnTsx';
import { WAIT_MS } from '../helpers/deadlines';

jest.setTimeout(120_000);

const MAIN = 'src/cli/main.ts';
let dir: string;
let child: TsxChild | undefined;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'record-cli-'));
});
afterEach(async () => {
  await child?.stop();
  child = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const number = (line: string, re: RegExp): number => Number(re.exec(line)?.[1] ?? NaN);

test('record --duration-ms with random faults, then replay --speed max: every recorded frame replayed, the view drawn from it', async () => {
  const out = join(dir, 'session.rec');
  const rec = await runTsx(MAIN, ['record', '--duration-ms', '2500', '--random-faults', '2', '--seed', '7', '--out', out], 60_000);
  expect(rec.stderr).toBe('');
  expect(rec.exit.code).toBe(0);
  expect(rec.lines[0]).toMatch(/^record: simulator seed 7 -> .*session\.rec; markets BTC-PERP, SOL\/USDC; account /);
  const summary = rec.lines.find((l) => l.startsWith('recorded '))!;
  expect(summary).toMatch(/stopped: closed/);
  const frames = number(summary, / (\d+) frames/);
  expect(frames).toBeGreaterThan(50);
  expect(statSync(out).size).toBe(number(summary, / (\d+) bytes/));

  const rep = await runTsx(MAIN, ['replay', out, '--speed', 'max'], 60_000);
  expect(rep.stderr).toBe('');
  expect(rep.exit.code).toBe(0);
  expect(rep.lines[0]).toMatch(/^view: replay of .*session\.rec \(recorded .*, full speed\); markets BTC-PERP, SOL\/USDC; account /);
  expect(rep.lines.some((l) => l.startsWith('t=') && / BTC-PERP book=live /.test(l))).toBe(true);
  const replayed = rep.lines.find((l) => l.startsWith('replayed '))!;
  expect(number(replayed, /^replayed (\d+) frames/)).toBe(frames);
  expect(replayed).not.toMatch(/no end entry|torn/);
});

test('a recorder killed with SIGKILL leaves a file that replays up to its last complete chunk', async () => {
  const out = join(dir, 'killed.rec');
  child = new TsxChild(MAIN, ['record', '--out', out, '--seed', '3']);
  // Two progress lines: at least one chunk flushed (every second).
  await child.waitForLine((l) => l.startsWith('t=2'), 'two seconds of recording', 60_000);
  child.signal('SIGKILL');
  await child.waitForExit();
  const rep = await runTsx(MAIN, ['replay', out, '--speed', 'max'], 60_000);
  expect(rep.stderr).toBe('');
  expect(rep.exit.code).toBe(0);
  const replayed = rep.lines.find((l) => l.startsWith('replayed '))!;
  expect(number(replayed, /^replayed (\d+) frames/)).toBeGreaterThan(0);
  expect(replayed).toMatch(/the session has no end entry/);
});

test('usage errors: one line, exit code 2', async () => {
  const missing = await runTsx(MAIN, ['record', '--duration-ms', '100'], WAIT_MS);
  expect(missing.exit.code).toBe(2);
  expect(missing.stderr).toMatch(/^error ERR_CLI_USAGE: .*--out/);
  const speed = await runTsx(MAIN, ['replay', 'x.rec', '--speed', 'fast'], WAIT_MS);
  expect(speed.exit.code).toBe(2);
  expect(speed.stderr).toMatch(/^error ERR_CLI_USAGE: .*--speed.*"max"/);
  const notFound = await runTsx(MAIN, ['replay', join(dir, 'nope.rec')], WAIT_MS);
  expect(notFound.exit.code).toBe(1);
  expect(notFound.stderr).toMatch(/^error ERR_RECORDING_INVALID: cannot read the recording/);
});
