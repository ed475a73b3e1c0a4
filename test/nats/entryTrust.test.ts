/**
 * A KV entry ahead of the stream that no relay vouches for is not started from, and is reported
 * once, but not at first sight: the relay that wrote it may have sent its vouching heartbeat
 * before the write, and heartbeats come late on a loaded machine. Reported once two heartbeats
 * a relay later none vouched for it; never when one did.
 */
import { systemClock } from '../../src/clock';
import type { ExchangeReplicaError } from '../../src/errors';
import { BusFeed } from '../../src/nats/BusFeed';
import { EntryTrust } from '../../src/nats/EntryTrust';
import type { FeedContext } from '../../src/nats/FeedRunner';
import { RelayHeartbeats } from '../../src/nats/RelayHeartbeats';
import { BUS_FORMAT_VERSION, busNames, encodeHeartbeat, type SnapshotRecord } from '../../src/nats/wire';

const KEY = 'bbo|market_id=1|is_perps=true';

function heartbeat(relayId: string, publishedSeq: bigint): string {
  return encodeHeartbeat({
    v: BUS_FORMAT_VERSION,
    relayId,
    state: 'running',
    atNs: 1n,
    intervalMs: 200,
    snapshotRefreshMs: 60_000,
    feed: 'open',
    jsStream: 'ER',
    bucket: 'er',
    streams: [{ streamKey: KEY, subject: 'er.u.bbo', snapshotKey: 'bbo', channel: 'bbo', scope: { market_id: 1, is_perps: true }, status: 'live', publishedSeq, snapshotSequence: publishedSeq, published: 1, duplicates: 0, messages: 1, syncs: 1 }],
  });
}

function setup() {
  const reported: ExchangeReplicaError[] = [];
  const heartbeats = new RelayHeartbeats(systemClock, 3, 60_000, (e) => reported.push(e as ExchangeReplicaError));
  const ctx = { heartbeats, report: (e: unknown) => reported.push(e as ExchangeReplicaError) } as unknown as FeedContext;
  const feed = new BusFeed('bbo', { market_id: 1, is_perps: true }, busNames());
  const entry = { sequence: 11n, jsStartSeq: 5, writtenAtNs: 1n, relayId: 'relay-a' } as unknown as SnapshotRecord;
  return { reported, heartbeats, trust: new EntryTrust(ctx), feed, entry };
}

test('not reported at first sight, nor after one heartbeat a relay; once after two that do not vouch', () => {
  const { reported, heartbeats, trust, feed, entry } = setup();
  heartbeats.read(heartbeat('relay-a', 10n));
  heartbeats.read(heartbeat('relay-b', 10n));
  trust.reportUnbelieved(feed, entry, undefined);
  expect(reported).toEqual([]);
  for (const r of ['relay-a', 'relay-b']) heartbeats.read(heartbeat(r, 10n));
  trust.reportUnbelieved(feed, entry, undefined);
  expect(reported).toEqual([]);
  for (const r of ['relay-a', 'relay-b']) heartbeats.read(heartbeat(r, 10n));
  trust.reportUnbelieved(feed, entry, undefined);
  expect(reported.map((e) => e.code)).toEqual(['ERR_BUS']);
  expect(reported[0]!.message).toContain('no relay heartbeat vouches');
  for (const r of ['relay-a', 'relay-b', 'relay-a', 'relay-b']) heartbeats.read(heartbeat(r, 10n));
  trust.reportUnbelieved(feed, entry, undefined);
  expect(reported).toHaveLength(1);
});
