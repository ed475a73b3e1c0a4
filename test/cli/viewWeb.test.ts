/**
 * `exchange-replica view --web`: the event stream without a browser (well-formed snapshots,
 * a slow page's buffering bounded, the server gone once the view stops), then the page in a
 * real headless Chromium against the CLI in a child process: the depth chart drawn (bid
 * pixels left of the mid, ask pixels right), trades listed, every replica live, the
 * histogram filled, another market picked in place, and "view stopped" after SIGTERM.
 */
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { runView } from '../../src/cli/view/runView';
import { Terminal } from '../../src/cli/term/Terminal';
import { DEPTH_COLORS } from '../../src/cli/web/pageScript';
import { WebViewServer } from '../../src/cli/web/WebViewServer';
import { webSnapshotSchema, type WebSnapshot } from '../../src/cli/web/WebSnapshot';
import { describeWithChromium, launchChromium } from '../browser/chromium';
import { runProgram } from './runProgram';
import { TsxChild } from './spawnTsx';
import { WAIT_MS } from '../helpers/deadlines';

/** One Server-Sent Event. */
interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** Reads an event stream and waits on its events (never on time). */
class SseReader {
  readonly events: SseEvent[] = [];
  ended = false;
  private text = '';
  private readonly waiters = new Set<() => void>();
  private constructor(readonly res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.text += chunk;
      let cut: number;
      while ((cut = this.text.indexOf('\n\n')) >= 0) {
        const block = this.text.slice(0, cut);
        this.text = this.text.slice(cut + 2);
        const field = (name: string) => block.split('\n').find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
        const data = field('data');
        if (data !== undefined) this.events.push({ event: field('event') ?? 'message', data });
      }
      this.notify();
    });
    res.on('end', () => {
      this.ended = true;
      this.notify();
    });
  }

  static open(url: string): Promise<SseReader> {
    return new Promise((resolve, reject) => {
      const req = get(`${url}events`, { agent: false }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET /events answered ${res.statusCode}`));
        else resolve(new SseReader(res));
      });
      req.on('error', reject);
    });
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves once `pred` holds (checked after every chunk), within `ms`. */
  until(pred: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!pred()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${ms} ms waiting for ${what} (${this.events.length} events)`));
      }, ms);
      this.waiters.add(check);
      check();
    });
  }

  snapshots(): WebSnapshot[] {
    return this.events.filter((e) => e.event === 'message').map((e) => webSnapshotSchema.parse(JSON.parse(e.data)));
  }

  close(): void {
    this.res.destroy();
  }
}

/** GET that answers the status code, or the error code of a refused connection. */
function statusOf(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

const bookLive = (s: WebSnapshot, symbol: string): boolean => s.markets.some((m) => m.symbol === symbol && m.book.status === 'live');

describe('view --web, the event stream', () => {
  it('pushes well-formed snapshots and closes the server when the view stops', async () => {
    const output = new PassThrough();
    const input = new PassThrough();
    let printed = '';
    output.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const terminal = new Terminal({ output: output as unknown as NodeJS.WriteStream, input: input as unknown as NodeJS.ReadStream });
    const running = runView({ seed: 3, webPort: 0, durationMs: 50_000 }, { terminal });
    const url = await new Promise<string>((resolve, reject) => {
      const check = (): void => {
        const m = /^view: serving (http:\/\/127\.0\.0\.1:\d+\/) \(simulator seed 3 at \S+; markets BTC-PERP, SOL\/USDC; account \S+\); Ctrl-C stops$/m.exec(printed);
        if (m) resolve(m[1]!);
      };
      output.on('data', check);
      running.catch(reject);
    });
    const reader = await SseReader.open(url);
    try {
      await reader.until(() => reader.snapshots().filter((s) => bookLive(s, 'BTC-PERP') && bookLive(s, 'SOL/USDC')).length >= 3, 'three snapshots with both books live');
      const snapshots = reader.snapshots(); // parsed by the schema: well-formed, or this throws
      const last = snapshots[snapshots.length - 1]!;
      expect(last.feed).toEqual({ status: 'open', tone: 'good', reason: expect.any(String) });
      for (const m of last.markets) {
        expect(m.book.bids.length).toBeGreaterThan(0);
        // Cumulative sizes never decrease, best level first.
        const totals = m.book.bids.map((l) => Number(l.total));
        expect([...totals].sort((a, b) => a - b)).toEqual(totals);
        expect(Number(m.book.bids[0]!.price)).toBeLessThan(Number(m.book.asks[0]!.price));
      }
      expect(last.statuses.map((s) => s.name)).toEqual(expect.arrayContaining(['book BTC-PERP', 'stats SOL/USDC', 'trades BTC-PERP', 'funding BTC-PERP', 'account']));
      const h = last.latency.histogram;
      expect(h.counts.length).toBe(h.boundsUs.length + 1);
      expect(h.counts.reduce((a, b) => a + b, 0)).toBe(last.latency.model.count);
      expect(snapshots.map((s) => s.elapsedMs)).toEqual([...snapshots.map((s) => s.elapsedMs)].sort((a, b) => a - b));

      input.write('q');
      expect(await running).toBe('quit');
      await reader.until(() => reader.ended, 'the end of the stream');
      expect(reader.events[reader.events.length - 1]!.event).toBe('end');
      expect(await statusOf(url)).toBe('ECONNREFUSED');
      expect(printed).toMatch(/\nview stopped after \d+\.\ds: resyncs \d+, errors 0, server→model p50/);
    } finally {
      reader.close();
      input.write('q');
      await running.catch(() => undefined);
    }
  });

  it('keeps a page that stopped reading to the newest snapshot (bounded), then delivers it', async () => {
    const server = await WebViewServer.start(0);
    const reader = await SseReader.open(server.url);
    try {
      await reader.until(() => server.clientCount === 1, 'the page connected');
      reader.res.pause();
      // 64 KiB snapshots, one per turn of the event loop, until the socket is backed up for good.
      const base = webSnapshotSchema.parse(JSON.parse(JSON.stringify(sampleSnapshot())));
      const padding = 'x'.repeat(64 * 1024);
      let sent = 0;
      const dropped = (): number => server.clientStats()[0]?.dropped ?? 0;
      while (sent < 1_000 && dropped() < 100) {
        server.publish({ ...base, label: `slow #${sent++} ${padding}` });
        await new Promise((r) => setImmediate(r));
      }
      const stats = server.clientStats()[0]!;
      const eventBytes = Buffer.byteLength(JSON.stringify({ ...base, label: `slow #${sent} ${padding}` })) + 16;
      expect(stats.dropped).toBeGreaterThanOrEqual(100);
      // Socket high-water mark (16 KiB) plus the write that crossed it, plus the one waiting.
      expect(stats.bufferedBytes).toBeLessThanOrEqual(16 * 1024 + eventBytes);
      expect(stats.pendingBytes).toBeLessThanOrEqual(eventBytes);
      expect(stats.pendingBytes).toBeGreaterThan(0);

      reader.res.resume();
      const newest = `slow #${sent - 1} `;
      await reader.until(() => reader.events.some((e) => e.data.includes(newest)), 'the newest snapshot after the page read again');
      const labels = reader.snapshots().map((s) => s.label.slice(0, 12));
      expect(labels.length).toBeLessThan(sent);
    } finally {
      reader.close();
      await server.close();
    }
  });
});

describe('view --web, flags', () => {
  it('rejects --port without --web, and a port in use before starting anything (exit 2)', async () => {
    const alone = await runProgram(['view', '--port', '0']);
    expect(alone).toMatchObject({ code: 2, stdout: '' });
    expect(alone.stderr).toBe('error ERR_CLI_USAGE: --port is the port of --web: add --web\n');

    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    try {
      const port = (busy.address() as AddressInfo).port;
      const taken = await runProgram(['view', '--web', '--port', String(port)]);
      expect(taken).toMatchObject({ code: 2, stdout: '' });
      expect(taken.stderr).toMatch(new RegExp(`^error ERR_CLI_USAGE: cannot serve the web view on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*; pick another with --port N \\(0: any free port\\)\\n$`));
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });
});

/** A valid snapshot of a tiny view (for the server test, which publishes by hand). */
function sampleSnapshot(): WebSnapshot {
  const p = { p50: 1000, p99: 2000, count: 1 };
  return {
    v: 1,
    label: 'sample',
    elapsedMs: 0,
    feed: { status: 'open', tone: 'good', reason: 'connected' },
    markets: [],
    statuses: [],
    latency: { model: p, sent: p, feed: { p50: 1, p99: 2, streams: 1 }, histogram: { boundsUs: [100], counts: [1, 0] } },
    rates: { framesPerSecond: 0, updatesPerSecond: 0 },
    resyncs: 0,
    errors: 0,
    lastError: null,
    lastFault: null,
  };
}

describeWithChromium('view --web in headless Chromium', () => {
  let child: TsxChild | undefined;
  afterEach(async () => {
    await child?.stop();
    child = undefined;
  });

  it('draws the depth chart, lists trades, shows every replica live, and says when the view stopped', async () => {
    child = new TsxChild('src/cli/main.ts', ['view', '--web', '--port', '0', '--seed', '1', '--duration-ms', '55000']);
    const line = await child.waitForLine((l) => l.startsWith('view: serving '), 'the URL line');
    const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(line)![1]!;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (m) => void (m.type() === 'error' && problems.push(`console: ${m.text()}`)));
      page.on('request', (r) => void (!r.url().startsWith(url) && problems.push(`request to another origin: ${r.url()}`)));
      await page.goto(url);
      // Browser-side code as text (this project's TypeScript has no DOM types), a function:
      // playwright evaluates it once, then calls it, which the page's CSP (no eval) allows.
      await page.waitForFunction(
        `() => {
          const live = (name) => document.querySelector('#statuses li[data-name="' + name + '"]')?.dataset.status === 'live';
          return Number(document.body.dataset.snapshots) >= 5 && live('book BTC-PERP') && live('book SOL/USDC') && live('account')
            && document.querySelector('#depth').dataset.drawn === '1' && Number(document.querySelector('#trades').dataset.rows) > 0;
        }`,
        undefined,
        { timeout: 40_000, polling: 100 },
      );

      // The chart redraws ten times a second from a moving book (a side can be momentarily thin):
      // wait until a drawing shows both areas, then check that drawing strictly.
      const pixels = await eventually(() => depthPixels(page), (p) => p.bid.left > (p.width * p.height) / 200 && p.ask.right > (p.width * p.height) / 200, WAIT_MS);
      const half = (pixels.width * pixels.height) / 2;
      expect(pixels.bid.left).toBeGreaterThan(half * 0.01);
      expect(pixels.ask.right).toBeGreaterThan(half * 0.01);
      expect(pixels.bid.right).toBe(0);
      expect(pixels.ask.left).toBe(0);
      // What the screen shows, not only the canvas' memory: the element's screenshot is a non-empty PNG.
      const png = await page.locator('#depth').screenshot();
      // To look at the page: VIEW_WEB_SCREENSHOT=/tmp/view.png npx jest test/cli/viewWeb.test.ts
      if (process.env.VIEW_WEB_SCREENSHOT) await page.screenshot({ path: process.env.VIEW_WEB_SCREENSHOT, fullPage: true });
      expect(png.subarray(1, 4).toString()).toBe('PNG');

      const trades = await page.$$eval('#trades tbody tr:not([hidden])', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')));
      expect(trades.length).toBeGreaterThan(0);
      for (const [time, side, price, size] of trades) {
        expect(time).toMatch(/^\d\d:\d\d:\d\d\.\d{3}$/);
        expect(['buy', 'sell']).toContain(side);
        expect(price).toMatch(/^\d+$/); // BTC-PERP: one-unit ticks
        expect(size).toMatch(/^\d+\.\d{4}$/);
      }
      const feedClass = await page.getAttribute('#feed', 'class');
      expect(feedClass).toContain('tone-good');
      expect(await page.getAttribute('#statuses li[data-name="book BTC-PERP"] .word', 'class')).toContain('tone-good');
      const bars = await page.$$eval('#histogram .count', (cells) => cells.map((c) => Number(c.textContent)));
      expect(bars.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

      // Another book, picked on the page, drawn in place (same page, more snapshots).
      const before = Number(await page.getAttribute('body', 'data-snapshots'));
      await page.selectOption('#market', 'spot:3');
      await page.waitForFunction(`() => Number(document.body.dataset.snapshots) > ${before + 2}`, undefined, { timeout: 20_000, polling: 100 });
      expect(await page.textContent('#book-summary')).toMatch(/^bid \d+\.\d{3} {2}ask \d+\.\d{3}/);
      const spot = await depthPixels(page);
      expect(spot.bid.left).toBeGreaterThan(0);
      expect(spot.ask.right).toBeGreaterThan(0);

      child.signal('SIGTERM');
      expect(await child.waitForExit()).toEqual({ code: 0, signal: null });
      await page.waitForFunction(`() => document.body.dataset.ended === '1'`, undefined, { timeout: 10_000, polling: 100 });
      expect(await page.textContent('#feed')).toBe('view stopped');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});

describeWithChromium('view --web page, server strings', () => {
  it('shows every server-provided string as text, never as markup', async () => {
    const server = await WebViewServer.start(0);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const hostile = '<img src=x onerror="document.body.dataset.pwned=1">';
      const market = { key: 'perp:0', symbol: hostile, type: 'perp', id: 0, book: { status: hostile, tone: 'other' as const, bids: [{ price: '1', size: '1', total: '1' }], asks: [{ price: '2', size: '1', total: '1' }], mid: '1.5', spread: '1' }, last: hostile, trades: [{ time: hostile, side: 'buy' as const, price: hostile, size: hostile }], tradeCount: 1 };
      const snapshot: WebSnapshot = { ...sampleSnapshot(), label: hostile, lastError: hostile, markets: [market], statuses: [{ name: hostile, status: hostile, tone: 'other', detail: hostile }] };
      await page.goto(server.url);
      await page.waitForFunction(`() => document.querySelector('#book-panel') !== null`, undefined, { timeout: 10_000 });
      server.publish(snapshot);
      await page.waitForFunction(`() => Number(document.body.dataset.snapshots) >= 1`, undefined, { timeout: 10_000, polling: 50 });
      expect(await page.textContent('#label')).toBe(hostile);
      expect(await page.textContent('#book-status')).toBe(hostile);
      expect(await page.textContent('#trades tbody td')).toBe(hostile);
      expect(await page.textContent('#statuses li:nth-child(2) span')).toBe(hostile);
      expect(await page.textContent('#footer')).toContain(hostile);
      expect(await page.$$eval('img', (imgs) => imgs.length)).toBe(0);
      expect(await page.getAttribute('body', 'data-pwned')).toBeNull();
    } finally {
      await browser.close();
      await server.close();
    }
  });
});

const sideCounts = z.strictObject({ left: z.number(), right: z.number() });
const depthCounts = z.strictObject({ width: z.number(), height: z.number(), bid: sideCounts, ask: sideCounts });

/** Pixels of exactly the bid and ask fill colours, left and right of the canvas' middle (read in the page). */
async function depthPixels(page: Page): Promise<z.infer<typeof depthCounts>> {
  const counted: unknown = await page.evaluate(`((colors) => {
    const canvas = document.querySelector('#depth');
    const { width, height } = canvas;
    const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const count = { bid: { left: 0, right: 0 }, ask: { left: 0, right: 0 } };
    for (let i = 0; i < data.length; i += 4) {
      const side = (i / 4) % width < width / 2 ? 'left' : 'right';
      for (const k of ['bid', 'ask']) {
        const c = colors[k];
        if (data[i] === c[0] && data[i + 1] === c[1] && data[i + 2] === c[2] && data[i + 3] === 255) count[k][side]++;
      }
    }
    return { width, height, ...count };
  })(${JSON.stringify(DEPTH_COLORS)})`);
  return depthCounts.parse(counted);
}

/** Polls `read` (every 100 ms) until `ok` holds, for at most `ms`; returns the last reading either way. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() >= deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
