/**
 * The client's OpenTelemetry instruments, recorded into a real SDK MeterProvider while the
 * client runs against the simulator over real sockets: what the instruments say is checked
 * against what the test itself saw (a raw tap of the stream, the replica's emissions,
 * `errors$`, `resyncCounts()`). Collections run between two frames: a collection only awaits
 * microtasks, so no frame is handled while it runs.
 */
import { streamKey } from '../../src/protocol';
import { METRIC_INSTRUMENTS as I, type BatchCallback, type MeterLike, type MeterProviderLike, type ObservableLike } from '../../src/metrics';
import { startPair, waitFor, type Pair } from '../e2e/harness';
import { startSdk, type Sdk } from './otelCollect';

const MARKET = { market_type: 'perp', market_id: 1 } as const;
const SCOPE = { market_id: 1, is_perps: true } as const;
const KEY = streamKey('book', SCOPE);
const STREAM = { 'exchange_replica.stream': KEY, 'exchange_replica.channel': 'book' } as const;

let pair: Pair | undefined;
let sdk: Sdk;
beforeEach(() => {
  sdk = startSdk();
});
afterEach(async () => {
  await pair?.close();
  pair = undefined;
  await sdk.provider.shutdown();
});

async function start(): Promise<Pair> {
  pair = await startPair({ seed: 5, eventsPerSecond: 400 }, { meterProvider: sdk.provider });
  return pair;
}

it('records each update of a stream once (count, latency, staleness), its emissions, the frames and the replicas by status', async () => {
  const p = await start();
  let tapped = 0;
  const tap = p.client.updates('book', SCOPE).subscribe((e) => {
    if (e.kind === 'update') tapped++;
  });
  const book = p.client.orderBook(MARKET);
  let applied = 0;
  const a = book.subscribe((e) => {
    if (e.cause === 'update') applied++;
  });
  const b = book.subscribe(() => undefined); // a second subscriber: nothing counted twice
  await waitFor(book, () => applied >= 30, '30 applied book updates');
  const appliedBefore = applied;
  const c = await sdk.collect();
  const appliedAfter = applied;

  const updates = c.total(I.updates.name, STREAM);
  expect(updates).toBeGreaterThanOrEqual(appliedBefore);
  expect(updates).toBeLessThanOrEqual(tapped);
  expect(c.sums(I.updates.name, STREAM)).toHaveLength(1);
  // Every update counted is in the latency histogram; every one but the stream's first ended a staleness.
  expect(c.histogramCount(I.updateLatency.name, STREAM)).toBe(updates);
  expect(c.histogramCount(I.staleness.name, STREAM)).toBe(updates - 1);
  const [latency] = c.histograms(I.updateLatency.name, STREAM);
  expect(latency!.min).toBeGreaterThanOrEqual(0);
  expect(latency!.max).toBeLessThan(60); // seconds: a nanosecond figure would be ~1e9 times larger
  expect(latency!.sum).toBeGreaterThan(0);
  // One emission timed per applied update, whatever the number of subscribers.
  const emissions = c.histogramCount(I.emissionLatency.name, STREAM);
  expect(emissions).toBeGreaterThanOrEqual(appliedBefore);
  expect(emissions).toBeLessThanOrEqual(appliedAfter);
  expect(c.total(I.frames.name)).toBeGreaterThanOrEqual(updates);
  expect(c.sums(I.replicaCount.name, { 'exchange_replica.channel': 'book' }).map((s) => [s.attributes['exchange_replica.replica.status'], s.value]).sort()).toEqual([
    ['failed', 0],
    ['live', 1],
    ['resyncing', 0],
    ['stale', 0],
    ['syncing', 0],
  ]);
  expect(c.metric(I.updateLatency.name).descriptor.unit).toBe('s');
  a.unsubscribe();
  b.unsubscribe();
  tap.unsubscribe();
});

it('counts a forced resync with its reason, and keeps it after the replica closed', async () => {
  const p = await start();
  const book = p.client.orderBook(MARKET);
  const sub = book.subscribe();
  await waitFor(book, (s) => s.status === 'live', 'live');
  p.sim.faults.resyncStream(KEY);
  await waitFor(book, (s) => s.snapshotId >= 2 && s.status === 'live', 'live again after resync_required');
  const counted = p.client.resyncCounts().resync_required;
  expect(counted).toBeGreaterThanOrEqual(1);
  const during = await sdk.collect();
  expect(during.sums(I.resyncs.name, { ...STREAM, 'exchange_replica.resync.reason': 'resync_required' })).toEqual([{ attributes: expect.anything(), value: counted }]);
  // No other reason was counted for the stream.
  expect(during.total(I.resyncs.name, STREAM)).toBe(counted);

  sub.unsubscribe(); // the last subscriber: the replica closes
  expect(p.client.activity().replicas).toBe(0);
  expect(p.client.resyncCounts().resync_required).toBe(0); // the replicas running now: none
  const after = await sdk.collect();
  expect(after.total(I.resyncs.name, { ...STREAM, 'exchange_replica.resync.reason': 'resync_required' })).toBe(counted); // a counter never goes down
  expect(after.total(I.replicaCount.name, { 'exchange_replica.channel': 'book' })).toBe(0);
});

it('counts the errors the client survived by code', async () => {
  const p = await start();
  const seen: string[] = [];
  const errors = p.client.errors$.subscribe((e) => seen.push(e.code));
  const book = p.client.orderBook(MARKET);
  let thrown = 0;
  const sub = book.subscribe((e) => {
    if (e.cause === 'update' && thrown < 3) {
      thrown++;
      throw new Error('a strategy bug');
    }
  });
  await waitFor(p.client.errors$, () => seen.filter((c) => c === 'ERR_SUBSCRIBER_THREW').length >= 3, 'three subscriber errors');
  const c = await sdk.collect();
  expect(c.total(I.errors.name, { 'error.type': 'ERR_SUBSCRIBER_THREW' })).toBe(seen.filter((x) => x === 'ERR_SUBSCRIBER_THREW').length);
  expect(c.total(I.errors.name)).toBe(seen.length);
  sub.unsubscribe();
  errors.unsubscribe();
});

it('counts an error that names its stream with the stream', async () => {
  // One update held at most while the snapshot is on its way (held back by a slow answer): ERR_BUFFER_OVERFLOW, naming the stream.
  pair = await startPair({ seed: 5, eventsPerSecond: 400 }, { meterProvider: sdk.provider, replica: { maxBufferedUpdates: 1 } });
  const p = pair;
  const seen: string[] = [];
  const errors = p.client.errors$.subscribe((e) => {
    if (e.code === 'ERR_BUFFER_OVERFLOW') seen.push(e.context.stream ?? '');
  });
  p.sim.faults.restLatencyMs(1000);
  const sub = p.client.orderBook(MARKET).subscribe();
  await waitFor(p.client.errors$, () => seen.length >= 1, 'a buffer overflow');
  const c = await sdk.collect();
  expect(seen.every((s) => s === KEY)).toBe(true);
  expect(c.total(I.errors.name, { ...STREAM, 'error.type': 'ERR_BUFFER_OVERFLOW' })).toBe(seen.length);
  sub.unsubscribe();
  errors.unsubscribe();
});

it('stops observing a closed client: its batch callback and its frame listener are removed', async () => {
  // The SDK's meter, with the client's batch callback counted as the SDK calls it.
  let calls = 0;
  const meterProvider: MeterProviderLike = {
    getMeter: (name, version) => {
      const meter = sdk.provider.getMeter(name, version);
      const wrapped = new Map<BatchCallback, BatchCallback>();
      const wrap = (cb: BatchCallback): BatchCallback => {
        if (!wrapped.has(cb)) wrapped.set(cb, (result) => (calls++, cb(result)));
        return wrapped.get(cb)!;
      };
      return Object.assign(Object.create(meter) as MeterLike, {
        addBatchObservableCallback: (cb: BatchCallback, obs: ObservableLike[]) => meter.addBatchObservableCallback(wrap(cb), obs),
        removeBatchObservableCallback: (cb: BatchCallback, obs: ObservableLike[]) => meter.removeBatchObservableCallback(wrap(cb), obs),
      });
    },
  };
  pair = await startPair({ seed: 5, eventsPerSecond: 400 }, { meterProvider });
  const p = pair;
  const book = p.client.orderBook(MARKET);
  const sub = book.subscribe();
  await waitFor(book, (s) => s.status === 'live', 'live');
  expect((await sdk.collect()).total(I.replicaCount.name, { 'exchange_replica.replica.status': 'live' })).toBe(1);
  expect(calls).toBe(1);
  const listeners = p.client.connection.listenerCount('message');
  sub.unsubscribe();
  await p.client.close();
  await sdk.collect();
  expect(calls).toBe(1);
  expect(p.client.connection.listenerCount('message')).toBeLessThan(listeners);
});
