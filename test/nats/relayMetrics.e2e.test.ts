/**
 * A relay's metrics and health over HTTP (src/nats/relayMetrics.ts), against a real
 * nats-server and the simulator: /metrics is Prometheus text (prom-client's) with each
 * stream's publishes, duplicates, resyncs by reason, time since the last publish and snapshot
 * writes, NATS reconnects and event-loop lag; /healthz is 200 while every stream is live and
 * NATS is connected, 503 with the reason otherwise (NATS down, a stream not live). The
 * `relay --metrics-port` CLI serves the same on 127.0.0.1. Every wait is for a state, bounded
 * only to catch a hang.
 */
import { request } from 'node:http';
import { RELAY_METRIC_NAMES as N, serveRelayMetrics, type RelayMetricsServer, type ReplicaRelay } from '../../src/nats';
import { streamKey } from '../../src/protocol';
import type { Simulator } from '../../src/simulator';
import { TsxChild } from '../cli/spawnTsx';
import { startRelay, startSim, waitUntil } from './busHarness';
import { NatsServer } from './natsServer';

/** A wait's bound: it only catches a hang (a loaded machine takes far less). */
const WAIT_MS = 60_000;

const BOOK = { channel: 'book', scope: { market_id: 0, is_perps: true } } as const;
const TRADES = { channel: 'trades', scope: { market_id: 0, is_perps: true } } as const;
const BOOK_KEY = streamKey(BOOK.channel, BOOK.scope);
const TRADES_KEY = streamKey(TRADES.channel, TRADES.scope);

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_x, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `labels`. */
function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const hits = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length > 1) throw new Error(`${hits.length} samples of ${name} ${JSON.stringify(labels)}`);
  return hits[0]?.value;
}

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

/** One HTTP request (a fresh connection each: nothing kept open across the test). */
function get(url: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, timeout: WAIT_MS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

async function scrape(url: string): Promise<Sample[]> {
  const r = await get(`${url}/metrics`);
  expect(r.status).toBe(200);
  return parseExposition(r.body);
}

describe('relay metrics and health', () => {
  let nats: NatsServer | undefined;
  let sim: Simulator | undefined;
  let relay: ReplicaRelay | undefined;
  let server: RelayMetricsServer | undefined;
  const children: TsxChild[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop();
    await server?.close();
    await relay?.close();
    await sim?.stop();
    await nats?.stop();
    server = undefined;
    relay = undefined;
    sim = undefined;
    nats = undefined;
  });

  it('serves each stream\'s counters, resyncs by reason, NATS reconnects and event-loop lag; healthz follows streams and NATS', async () => {
    nats = await NatsServer.start();
    sim = await startSim({ eventsPerSecond: 300 });
    const s = sim;
    const r = await startRelay(s, nats.url, { prefix: 'mx1', relayId: 'metrics-a', streams: [BOOK, TRADES], snapshotRefreshMs: 300 });
    relay = r;
    server = await serveRelayMetrics(r, { port: 0 });
    const url = server.url;
    expect(url).toBe(`http://127.0.0.1:${server.port}`);

    await waitUntil(async () => (await get(`${url}/healthz`)).status === 200, 'healthz 200 (every stream live)');
    expect(await get(`${url}/healthz`)).toMatchObject({ status: 200, body: 'ok\n' });
    const key = (k: string) => ({ stream: k, channel: k.split('|')[0]! });
    // Publishing, and a snapshot written for each stream.
    const first = await waitUntil(async () => {
      const m = await scrape(url);
      return [BOOK_KEY, TRADES_KEY].every((k) => (valueOf(m, N.updatesPublished, key(k)) ?? 0) >= 20 && (valueOf(m, N.snapshotWrites, key(k)) ?? 0) >= 1) && m;
    }, 'updates published and snapshots written on both streams');
    const answer = await get(`${url}/metrics`);
    expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const k of [BOOK_KEY, TRADES_KEY]) {
      const d = r.describe().find((x) => x.streamKey === k)!;
      expect(valueOf(first, N.batchesPublished, key(k))).toBeGreaterThan(0);
      expect(valueOf(first, N.batchesPublished, key(k))).toBeLessThanOrEqual(valueOf(first, N.updatesPublished, key(k))!);
      expect(valueOf(first, N.duplicatesDropped, key(k))).toBe(0); // one relay: JetStream never held a batch already
      expect(valueOf(first, N.syncs, key(k))).toBeGreaterThanOrEqual(1);
      expect(valueOf(first, N.streamStatus, { ...key(k), status: 'live' })).toBe(1);
      expect(valueOf(first, N.streamStatus, { ...key(k), status: 'syncing' })).toBe(0);
      expect(valueOf(first, N.secondsSinceLastPublish, key(k))).toBeGreaterThanOrEqual(0);
      expect(valueOf(first, N.resyncs, { ...key(k), reason: 'resync_required' })).toBe(0);
      expect(valueOf(first, N.resyncs, { ...key(k), reason: 'publish_failed' })).toBe(0);
      expect(valueOf(first, N.publishedSeq, key(k))).toBeLessThanOrEqual(Number(d.publishedSeq ?? 0n));
    }
    expect(valueOf(first, N.info, { relay: 'metrics-a' })).toBe(1);
    expect(valueOf(first, N.natsConnected)).toBe(1);
    expect(valueOf(first, N.natsReconnects)).toBe(0);
    expect(valueOf(first, N.feedConnected)).toBe(1);
    // Event-loop lag (prom-client's default metrics).
    expect(first.some((x) => x.name === 'nodejs_eventloop_lag_seconds')).toBe(true);
    expect(first.some((x) => x.name === 'nodejs_eventloop_lag_p99_seconds')).toBe(true);
    expect(first.some((x) => x.name === 'process_cpu_seconds_total')).toBe(true);

    // The exchange tells the relay to resync the book: counted by reason.
    s.faults.resyncStream(BOOK_KEY);
    await waitUntil(async () => (valueOf(await scrape(url), N.resyncs, { ...key(BOOK_KEY), reason: 'resync_required' }) ?? 0) >= 1, 'a resync_required resync of the book counted');

    // NATS goes away: 503 naming it, and the relay's streams stop being live meanwhile.
    await nats.kill();
    const down = await waitUntil(async () => {
      const h = await get(`${url}/healthz`);
      return h.status === 503 && h.body.includes('NATS disconnected') && h;
    }, 'healthz 503: NATS disconnected');
    expect(down.type).toMatch(/^text\/plain/);
    expect(valueOf(await scrape(url), N.natsConnected)).toBe(0);
    // Back (a memory stream: the bus is recreated, the streams resync onto it): 200 again, one reconnect.
    await nats.restart();
    await waitUntil(async () => (await get(`${url}/healthz`)).status === 200, 'healthz 200 after NATS came back');
    // The book resynced onto the new bus: counted as a reset of the bus, or as the publish that
    // failed when it went (on one server no publish waits through a restart: noLeaderWaitMs 0).
    const resyncedAfter = (m: Awaited<ReturnType<typeof scrape>>) => (valueOf(m, N.resyncs, { ...key(BOOK_KEY), reason: 'bus_reset' }) ?? 0) + (valueOf(m, N.resyncs, { ...key(BOOK_KEY), reason: 'publish_failed' }) ?? 0);
    const after = await waitUntil(async () => {
      const m = await scrape(url);
      return resyncedAfter(m) >= 1 && m;
    }, 'the book resync after the NATS restart counted');
    expect(valueOf(after, N.natsReconnects)).toBe(1);
    expect(valueOf(after, N.natsConnected)).toBe(1);

    // Only /metrics and /healthz; GET and HEAD only.
    expect((await get(`${url}/`)).status).toBe(404);
    expect((await get(`${url}/metrics`, 'POST')).status).toBe(405);
    expect(await get(`${url}/healthz`, 'HEAD')).toMatchObject({ status: 200, body: '' });
  });

  it('healthz names each stream that is not live', async () => {
    nats = await NatsServer.start();
    sim = await startSim({ eventsPerSecond: 300 });
    // A market the exchange does not have: its stream never goes live.
    const missing = { channel: 'book', scope: { market_id: 999, is_perps: true } } as const;
    const r = await startRelay(sim, nats.url, { prefix: 'mx2', relayId: 'metrics-b', streams: [BOOK, missing] });
    relay = r;
    server = await serveRelayMetrics(r, { port: 0 });
    const url = server.url;
    await waitUntil(() => r.describe().find((d) => d.streamKey === BOOK_KEY)?.status === 'live' || undefined, 'the book live');
    const h = await get(`${url}/healthz`);
    expect(h.status).toBe(503);
    const reasons = h.body.trim().split('\n');
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(new RegExp(`^${streamKey(missing.channel, missing.scope).replace(/[|]/g, '\\|')} (syncing|resyncing|stale|failed)$`));
    expect(server.health()).toMatchObject({ healthy: false, reasons: [expect.stringMatching(/^book\|market_id=999\|is_perps=true /)] });
  });

  it('refuses a port it cannot listen on with ERR_BUS, and a bad port with ERR_INVALID_PARAMETER', async () => {
    nats = await NatsServer.start();
    sim = await startSim({ eventsPerSecond: 50 });
    relay = await startRelay(sim, nats.url, { prefix: 'mx3', relayId: 'metrics-c', streams: [TRADES] });
    server = await serveRelayMetrics(relay, { port: 0 });
    await expect(serveRelayMetrics(relay, { port: server.port })).rejects.toMatchObject({ code: 'ERR_BUS', message: expect.stringMatching(/^cannot serve relay metrics on 127\.0\.0\.1:\d+: .*EADDRINUSE/) });
    await expect(serveRelayMetrics(relay, { port: 70_000 })).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', context: { param: 'port' } });
    await expect(serveRelayMetrics(relay, { port: 0, host: '' })).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', context: { param: 'host' } });
  });

  it('`relay --metrics-port 0` serves both on 127.0.0.1 and says where', async () => {
    nats = await NatsServer.start();
    sim = await startSim({ eventsPerSecond: 300 });
    const child = new TsxChild('src/cli/main.ts', [
      'relay', '--rest-url', sim.restUrl, '--nats', nats.url, '--markets', 'perp:0', '--channels', 'book,trades',
      '--prefix', 'mx4', '--relay-id', 'cli-metrics', '--metrics-port', '0', '--replicas', '1', '--status-ms', '1000',
    ]);
    children.push(child);
    const line = await child.waitForLine((l) => l.startsWith('metrics on '), 'the metrics line', WAIT_MS);
    const m = /^metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics, health on \1\/healthz$/.exec(line);
    expect(m).not.toBeNull();
    const url = m![1]!;
    await child.waitForLine((l) => l === `status ${BOOK_KEY} live`, 'book live', WAIT_MS);
    await waitUntil(async () => (await get(`${url}/healthz`)).status === 200, 'healthz 200 from the CLI');
    await waitUntil(async () => (valueOf(await scrape(url), N.updatesPublished, { stream: BOOK_KEY }) ?? 0) > 0, 'book updates counted by the CLI relay');
    expect(valueOf(await scrape(url), N.info, { relay: 'cli-metrics' })).toBe(1);
    child.signal('SIGTERM');
    expect((await child.waitForExit(WAIT_MS)).code).toBe(0);
  });

  it('`relay --replicas` takes 1 to 5', async () => {
    const child = new TsxChild('src/cli/main.ts', ['relay', '--rest-url', 'http://127.0.0.1:9', '--replicas', '6']);
    children.push(child);
    const exit = await child.waitForExit(WAIT_MS);
    expect(exit.code).not.toBe(0);
    expect(child.stderr).toMatch(/--replicas.*expected an integer from 1 to 5/);
  });
});
