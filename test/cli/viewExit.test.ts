/**
 * The live view ends cleanly by itself after --duration-ms and on SIGINT, with exit code 0
 * and its closing line.
 */
import { TsxChild } from './spawnTsx';

const MAIN = 'src/cli/main.ts';
const isStatus = (l: string) => l.startsWith('t=');

describe('view ends cleanly', () => {
  let child: TsxChild | undefined;
  afterEach(async () => {
    await child?.stop();
    child = undefined;
  });

  it('after --duration-ms', async () => {
    child = new TsxChild(MAIN, ['view', '--duration-ms', '2500']);
    const exit = await child.waitForExit();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(child.lines.filter(isStatus).length).toBeGreaterThanOrEqual(1);
    expect(child.lines[child.lines.length - 1]).toMatch(/^view stopped after/);
  });

  it('on SIGINT', async () => {
    child = new TsxChild(MAIN, ['view', '--duration-ms', '60000']);
    await child.waitForLine(isStatus, 'a first status line');
    child.signal('SIGINT');
    expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
    expect(child.lines[child.lines.length - 1]).toMatch(/^view stopped after/);
  });
});
