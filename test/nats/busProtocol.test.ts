/** The bus's names and formats, without NATS. */
import { CHANNEL_NAMES, streamKey, type ChannelName, type Scope } from '../../src/protocol';
import {
  busNames,
  decodeHeartbeat,
  decodeSnapshotRecord,
  encodeHeartbeat,
  encodeSnapshotRecord,
  encodeToken,
  exactJson,
  messageId,
  readUpdateHeaders,
  snapshotKey,
  updateSubject,
  type Heartbeat,
  type SnapshotRecord,
} from '../../src/nats/busProtocol';

const ADDRESS = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const SCOPES: Record<ChannelName, Scope> = {
  book: { market_id: 0, is_perps: true },
  bbo: { market_id: 3, is_perps: false },
  trades: { market_id: 1, is_perps: true },
  marketStats: { market_id: 1, is_perps: false },
  candles: { market_id: 0, is_perps: true, interval: '1m' },
  markCandles: { market_id: 0, interval: '1h' },
  fundingRates: { market_id: 0 },
  account: { address: ADDRESS, subaccount_id: 0 },
  balances: { address: ADDRESS, subaccount_id: 1 },
  positions: { address: ADDRESS, subaccount_id: 0 },
  orders: { address: ADDRESS, subaccount_id: 0 },
  fills: { address: ADDRESS, subaccount_id: 2 },
};
/** A NATS subject token: no dot, whitespace or wildcard. */
const TOKEN = /^[^.\s*>]+$/;
/** A KV key (the NATS clients' rule). */
const KV_KEY = /^[-/=.\w]+$/;

describe('bus names', () => {
  it('derives one valid, distinct subject and KV key per stream key', () => {
    const names = busNames();
    expect(names).toEqual({ prefix: 'er', stream: 'ER_UPDATES', updateSubjects: 'er.u.>', bucket: 'er_snapshots', heartbeatSubjects: 'er.hb.>' });
    const subjects = new Set<string>();
    for (const channel of CHANNEL_NAMES) {
      const subject = updateSubject(names, channel, SCOPES[channel]);
      const key = snapshotKey(channel, SCOPES[channel]);
      expect(subject.startsWith('er.u.')).toBe(true);
      for (const t of subject.split('.')) expect(t).toMatch(TOKEN);
      expect(key).toMatch(KV_KEY);
      expect(subject).toBe(`er.u.${key}`);
      subjects.add(subject);
    }
    expect(subjects.size).toBe(CHANNEL_NAMES.length);
    expect(updateSubject(names, 'book', { market_id: 0, is_perps: true })).toBe('er.u.book.market_id=0.is_perps=true');
  });

  it('encodes any text into one injective token', () => {
    const texts = ['a.b', 'a b', 'a*b', 'a>b', 'a-b', 'a-2Eb', 'é', '', '-', 'a_b=c', 'x|y'];
    const tokens = texts.map(encodeToken);
    expect(new Set(tokens).size).toBe(texts.length);
    for (const t of tokens) {
      expect(t).toMatch(TOKEN);
      expect(t).toMatch(KV_KEY);
    }
    expect(encodeToken('a.b')).toBe('a-2Eb');
  });

  it('refuses a prefix that cannot name a stream, a bucket and subjects', () => {
    for (const bad of ['', 'A', 'a.b', 'a b', '1x', 'x>']) expect(() => busNames(bad)).toThrow(/invalid bus prefix/);
    expect(busNames('my-ex_2').stream).toBe('MY_EX_2_UPDATES');
  });

  it('names a message by stream key and seq', () => {
    expect(messageId(streamKey('book', { market_id: 0, is_perps: true }), 42n)).toBe('book|market_id=0|is_perps=true#42');
  });
});

describe('formats', () => {
  it('reads the headers of an update message', () => {
    const h: Record<string, string> = { 'Er-Stream': 'book|market_id=0|is_perps=true', 'Er-Seq': '18446744073709551615', 'Er-Timestamp-Ns': '1700000000000000001', 'Er-Relay': 'r1' };
    expect(readUpdateHeaders((n) => h[n] ?? '')).toEqual({ streamKey: 'book|market_id=0|is_perps=true', seq: 18446744073709551615n, timestampNs: 1700000000000000001n, relayId: 'r1' });
    expect(() => readUpdateHeaders((n) => (n === 'Er-Seq' ? '1e3' : (h[n] ?? '')))).toThrow(/Er-Seq/);
  });

  it('carries JSON exactly and refuses what JSON cannot carry', () => {
    const data = { bids: [['100', '18446744073709551615']], n: 5, f: 0.1, ok: true, none: null };
    expect(JSON.parse(exactJson(data))).toEqual(data);
    expect(() => exactJson({ a: [1n] })).toThrow(/\$\.a\[0\] is a bigint/);
    expect(() => exactJson({ a: Number.NaN })).toThrow(/\$\.a is NaN/);
    expect(() => exactJson({ a: new Map() })).toThrow(/plain objects/);
  });

  it('round-trips a snapshot record with bigints as decimal strings', () => {
    const record: SnapshotRecord = {
      v: 1,
      streamKey: 'book|market_id=0|is_perps=true',
      channel: 'book',
      scope: { market_id: 0, is_perps: true },
      subject: 'er.u.book.market_id=0.is_perps=true',
      operation: 'orderBook',
      sequence: 18446744073709551615n,
      timestampNs: 1700000000000000001n,
      data: { bids: [['1', '2']], asks: [] },
      jsStream: 'ER_UPDATES',
      jsStartSeq: 12,
      writtenAtNs: 1700000000000000002n,
      relayId: 'r1',
    };
    const text = encodeSnapshotRecord(record);
    expect(JSON.parse(text).sequence).toBe('18446744073709551615');
    expect(decodeSnapshotRecord(text)).toEqual(record);
    expect(() => decodeSnapshotRecord(JSON.stringify({ ...JSON.parse(text), streamKey: 'book|market_id=1|is_perps=true' }))).toThrow(/does not match/);
    expect(() => decodeSnapshotRecord(JSON.stringify({ ...JSON.parse(text), v: 2 }))).toThrow(/invalid snapshot record/);
    expect(() => decodeSnapshotRecord(JSON.stringify({ ...JSON.parse(text), operation: 'bbo' }))).toThrow(/not the snapshot of book/);
  });

  it('round-trips a heartbeat', () => {
    const hb: Heartbeat = {
      v: 1,
      relayId: 'r1',
      state: 'running',
      atNs: 1700000000000000000n,
      intervalMs: 1000,
      snapshotRefreshMs: 5000,
      feed: 'open',
      jsStream: 'ER_UPDATES',
      bucket: 'er_snapshots',
      streams: [
        { streamKey: 'bbo|market_id=0|is_perps=true', channel: 'bbo', scope: { market_id: 0, is_perps: true }, subject: 'er.u.bbo.market_id=0.is_perps=true', snapshotKey: 'bbo.market_id=0.is_perps=true', status: 'live', publishedSeq: 7n, snapshotSequence: null, published: 7, duplicates: 0, syncs: 1 },
      ],
    };
    expect(decodeHeartbeat(encodeHeartbeat(hb))).toEqual(hb);
  });
});
