/**
 * The client in a real browser: the page entry (test/browser/page/bookPage.ts) is bundled
 * from the TypeScript sources by esbuild for the browser (no Node module may be pulled in),
 * served over HTTP on 127.0.0.1 from another origin than the simulator, and loaded in
 * headless Chromium, where an ExchangeClient runs on the platform's own WebSocket and fetch
 * (REST with a credentials header: CORS preflights included). Its book replica must reach
 * `live` and equal the simulator's truth (engine paused), then leave `live` when the
 * simulator drops every socket, come back, and equal the truth again. No page error.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import type { BookLevels, PriceLevel } from '../../src';
import { Simulator } from '../../src/simulator';
import { truth } from '../e2e/harness';
import { WAIT_MS } from '../helpers/deadlines';
import { describeWithChromium, launchChromium } from './chromium';
import type { BookView } from './page/bookPage';
const DEPTH = 200;
const MARKET = { market_type: 'perp', market_id: 0 } as const;

interface Bundle {
  readonly code: string;
  readonly inputs: readonly string[];
}

/** The page entry bundled as a browser ES module, with the list of files it took in. */
async function bundlePage(): Promise<Bundle> {
  const result = await build({
    entryPoints: [join(__dirname, 'page', 'bookPage.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(result.metafile.inputs) };
}

/** Serves the page and its script on 127.0.0.1 (its own origin: another port than the simulator's). */
async function servePage(script: string): Promise<{ server: Server; url: string }> {
  const html = '<!doctype html><meta charset="utf-8"><title>book</title><link rel="icon" href="data:,"><script type="module" src="/bookPage.js"></script>';
  const server = createServer((req, res) => {
    if (req.url === '/bookPage.js') res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script);
    else if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

const view = (page: Page): Promise<BookView> => page.evaluate<BookView>('bookProbe.view()');

/** Waits in the page until the replica's view satisfies `condition` (a JS expression over `v`, the view). */
async function waitInPage(page: Page, condition: string, what: string): Promise<void> {
  try {
    await page.waitForFunction(`(() => { const v = globalThis.bookProbe?.view(); return v !== undefined && (${condition}); })()`, undefined, { polling: 50, timeout: WAIT_MS });
  } catch (e) {
    throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}; the page's view: ${JSON.stringify(await view(page).catch(() => 'unreadable'))}`, { cause: e });
  }
}

describeWithChromium('ExchangeClient in headless Chromium (native WebSocket and fetch)', () => {
  let sim: Simulator | undefined;
  let browser: Browser | undefined;
  let pageServer: Server | undefined;

  afterAll(async () => {
    await browser?.close();
    await sim?.stop();
    pageServer?.closeAllConnections();
    await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
  });

  /** Pauses the engine, waits for the page's replica to be live at the truth's seq, compares, resumes. */
  async function expectEqualToTruth(page: Page, label: string): Promise<void> {
    sim!.pause();
    try {
      const t = truth<{ bids: PriceLevel[]; asks: PriceLevel[] }>(sim!, 'orderBook', { ...MARKET, depth: 500 });
      await waitInPage(page, `v.status === 'live' && v.seq === '${t.sequence}'`, `${label}: book live at seq ${t.sequence}`);
      const mine = await page.evaluate<BookLevels>(`bookProbe.levels(${DEPTH})`);
      expect({ label, bids: mine.bids, asks: mine.asks }).toEqual({ label, bids: t.data.bids.slice(0, DEPTH), asks: t.data.asks.slice(0, DEPTH) });
      expect(mine.bids.length).toBeGreaterThan(0);
    } finally {
      sim!.resume();
    }
  }

  test('the main entry bundles for the browser; the page\'s book replica equals the truth, survives dropAll, equals it again', async () => {
    const [bundle, started, launched] = await Promise.all([bundlePage(), Simulator.start({ seed: 3, eventsPerSecond: 200 }), launchChromium()]);
    sim = started;
    browser = launched;
    // Nothing of Node in the bundle: no node: module, no recorder (exchange-replica/record),
    // not even the ws package (the Node socket takes its modules at run time, under Node only).
    expect(bundle.inputs.filter((f) => f.startsWith('node:') || f.includes('src/record/') || f.includes('node_modules/ws/'))).toEqual([]);

    const served = await servePage(bundle.code);
    pageServer = served.server;
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.stack ?? e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(`console.error: ${m.text()}`);
    });
    // The page script defines startBook, or throws (then its error ends the wait at once).
    const scriptFailed = page.waitForEvent('pageerror', { timeout: WAIT_MS }).then((e) => Promise.reject(new Error(`the page script failed: ${e.stack ?? e.message}`)));
    scriptFailed.catch(() => undefined);
    await page.goto(served.url, { timeout: WAIT_MS });
    await Promise.race([page.waitForFunction('typeof globalThis.startBook === "function"', undefined, { polling: 50, timeout: WAIT_MS }), scriptFailed]);
    await page.evaluate(`startBook(${JSON.stringify(sim.restUrl)})`);

    await waitInPage(page, "v.status === 'live'", 'the replica live');
    expect((await view(page)).socketClass).toBe('WebSocket');
    await expectEqualToTruth(page, 'steady');

    const before = await view(page);
    expect(sim.faults.dropAll()).toBe(1);
    await waitInPage(page, `v.statuses.length > ${before.statuses.length} && v.status === 'live' && v.snapshotId > ${before.snapshotId}`, 'the replica out of live and back after dropAll');
    const after = await view(page);
    const since = after.statuses.slice(before.statuses.length);
    expect(since[since.length - 1]).toBe('live');
    expect(since.slice(0, -1).length).toBeGreaterThan(0);
    expect(since.slice(0, -1).filter((s) => s === 'live')).toEqual([]);
    await expectEqualToTruth(page, 'after dropAll');

    expect((await view(page)).errors).toEqual([]);
    await page.evaluate('bookProbe.close()');
    expect(pageErrors).toEqual([]);
  });
});
