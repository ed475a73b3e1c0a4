/** The bus's names and formats, without NATS. */
import { CHANNEL_NAMES, scanHotUpdate, streamKey, type ChannelName, type Scope } from '../../src/protocol';
import {
  BUS_FORMAT_VERSION,
  busNames,
  decodeHeartbeat,
  decodePublishAck,
  decodeUpdateBatch,
  decodeUpdateMessage,
  encodeUpdateBatch,
  encodeUpdateMessage,
  decodeSnapshotRecord,
  encodeHeartbeat,
  encodeSnapshotRecord,
  encodeToken,
  exactJson,
  messageId,
  snapshotKey,
  updateMessagePrefix,
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
/** Valid update `data` of some channels: the three compact ones and two through their schemas. */
const UPDATES = {
  book: { bids: [{ price_ticks: '100', size_base_lots: '18446744073709551615' }], asks: [] },
  bbo: { bid: null, ask: { price_ticks: '101', size_base_lots: '3' } },
  trades: { trades: [{ timestamp_ns: '1', sequence: '2', price_ticks: '3', size_base_lots: '4', quote_notional_lots: '5', taker_is_bid: true }] },
  fundingRates: { timestamp_ns: '1700000000000000000', sequence: '9', market_id: 0, funding_rate_100th_bps: -12, long_cumulative_funding_quote_lots: '-5', short_cumulative_funding_quote_lots: '5' },
} satisfies Partial<Record<ChannelName, unknown>>;

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

  it('names a message by stream key and the bounds of its batch', () => {
    expect(messageId(streamKey('book', { market_id: 0, is_perps: true }), 42n, 51n)).toBe('book|market_id=0|is_perps=true#42-51');
    // Two batches that start at the same seq but hold different updates have different ids (JetStream keeps both).
    expect(messageId('k', 10n, 12n)).not.toBe(messageId('k', 10n, 15n));
  });
});

describe('update batches', () => {
  const key = streamKey('book', SCOPES.book);
  const prefix = updateMessagePrefix('book', key);
  const level = (p: number) => ({ bids: [{ price_ticks: String(p), size_base_lots: '1' }], asks: [] });
  const frame = (seq: bigint) => encodeUpdateMessage(prefix, 'book', seq, 1000n + (seq % 1000n), level(Number(seq % 1000n)));
  const batch = (first: bigint, last: bigint) => {
    const frames: string[] = [];
    for (let s = first; s <= last; s++) frames.push(frame(s));
    return encodeUpdateBatch(first, frames);
  };
  const seqs = (text: string, after?: bigint) => decodeUpdateBatch(text, key, 'book', after).updates.map((u) => u.seq);

  it('carries consecutive updates of one stream under a head naming their bounds', () => {
    const text = batch(41n, 43n);
    expect(text.split('\n')).toEqual([`{"v":${BUS_FORMAT_VERSION},"first":"41","last":"43"}`, frame(41n), frame(42n), frame(43n)]);
    const { head, updates } = decodeUpdateBatch(text, key, 'book');
    expect([head.first, head.last]).toEqual([41n, 43n]);
    expect(updates).toEqual([41n, 42n, 43n].map((seq) => ({ streamKey: key, channel: 'book', seq, timestampNs: 1000n + seq, data: level(Number(seq)) })));
    expect(seqs(batch(18446744073709551615n, 18446744073709551615n))).toEqual([18446744073709551615n]);
    expect(() => encodeUpdateBatch(1n, [])).toThrow(/at least one/);
  });

  it('trims what a consumer already has: keeps the updates above `after`, drops a batch wholly at or below it', () => {
    expect(seqs(batch(10n, 15n), 12n)).toEqual([13n, 14n, 15n]);
    expect(seqs(batch(10n, 15n), 9n)).toEqual([10n, 11n, 12n, 13n, 14n, 15n]);
    expect(seqs(batch(10n, 15n), 15n)).toEqual([]);
    expect(seqs(batch(10n, 15n), 99n)).toEqual([]);
    // A trimmed frame is not read (never applied), so even a malformed one there costs nothing...
    const broken = batch(10n, 12n).replace(frame(10n), 'garbage');
    expect(seqs(broken, 10n)).toEqual([11n, 12n]);
    // ...but one that is kept is refused, and then nothing of the batch is returned.
    expect(() => seqs(broken, 9n)).toThrow(/not valid JSON/);
  });

  it('leaves the gap check to the reader: a batch above `after` + 1 is returned whole', () => {
    expect(seqs(batch(20n, 21n), 17n)).toEqual([20n, 21n]);
  });

  it('refuses a batch whose head does not match its frames', () => {
    const text = batch(10n, 12n);
    expect(() => seqs(text.replace('"last":"12"', '"last":"13"'))).toThrow(/batch 10..13 holds 3 frames/);
    expect(() => seqs(text.replace('"last":"12"', '"last":"11"'))).toThrow(/holds seq 12|holds 3 frames/);
    expect(() => seqs(text.replace('"first":"10"', '"first":"11"'))).toThrow(/frame 0 of batch 11..12 holds seq 10/);
    expect(() => seqs(text.replace('"last":"12"', '"last":"9"'))).toThrow(/ends before it starts/);
    expect(() => seqs(frame(1n).replace('"seq":"1"', '"seq":"1"'))).toThrow(/bare update frame \(bus format version 2\), this reader reads version 3/);
    expect(() => seqs(`${text.split('\n')[0]}`)).toThrow(/not a version 3 batch head/);
    expect(() => seqs(`{"v":4,"first":"10","last":"12","more":1}\n${frame(10n)}`)).toThrow(/bus format version 4, this reader reads version 3/);
    expect(() => seqs(`{"v":3,"first":"10","last":"10","more":1}\n${frame(10n)}`)).toThrow(/not a version 3 batch head/);
    // Another stream's frames under this stream's subject.
    expect(() => decodeUpdateBatch(text, streamKey('book', { market_id: 1, is_perps: true }), 'book')).toThrow(/names stream book\|market_id=0/);
  });
});

describe('formats', () => {
  it('round-trips update messages of the compact channels and of the others', () => {
    for (const [channel, data] of Object.entries(UPDATES) as [ChannelName, unknown][]) {
      const key = streamKey(channel, SCOPES[channel]);
      const text = encodeUpdateMessage(updateMessagePrefix(channel, key), channel, 18446744073709551615n, 1700000000000000001n, data);
      expect(decodeUpdateMessage(text, key, channel)).toEqual({ streamKey: key, channel, seq: 18446744073709551615n, timestampNs: 1700000000000000001n, data });
      // The exchange's own update frame, the stream key as its subscription id.
      expect(JSON.parse(text)).toEqual({ type: 'update', subscription_id: key, channel, seq: '18446744073709551615', timestamp_ns: '1700000000000000001', data });
    }
  });

  it('writes the hot channels in the compact form the fast decoder reads', () => {
    const key = streamKey('book', SCOPES.book);
    const text = encodeUpdateMessage(updateMessagePrefix('book', key), 'book', 7n, 8n, UPDATES.book);
    expect(text).toBe(`{"type":"update","subscription_id":"${key}","channel":"book","seq":"7","timestamp_ns":"8","data":{"bids":[{"price_ticks":"100","size_base_lots":"18446744073709551615"}],"asks":[]}}`);
    expect(scanHotUpdate(text)).toBeDefined();
  });

  it('refuses a malformed update message, naming the problem', () => {
    const key = streamKey('book', SCOPES.book);
    const good = encodeUpdateMessage(updateMessagePrefix('book', key), 'book', 7n, 8n, UPDATES.book);
    const bad: [string, RegExp][] = [
      ['not json', /not valid JSON/],
      [good.replace('"seq":"7"', '"seq":"7x"'), /does not match/],
      [good.replace('"seq":"7"', '"seq":"18446744073709551616"'), /does not match/],
      [good.replace('"100"', '"-100"'), /does not match/],
      [good.replace('"asks":[]', '"asks":[],"more":1'), /does not match/], // strict: no unknown key
      [good.replace('"data":{"bids"', '"data":{"bid"'), /does not match/],
      [good.slice(0, -1), /not valid JSON/],
      ['{"type":"pong","request_id":"1","timestamp_ns":"1"}', /a pong frame/],
    ];
    for (const [text, why] of bad) expect(() => decodeUpdateMessage(text, key, 'book')).toThrow(why);
    // Another stream's or channel's message on this subject.
    expect(() => decodeUpdateMessage(good, streamKey('book', { market_id: 1, is_perps: true }), 'book')).toThrow(/names stream book\|market_id=0/);
    const bbo = encodeUpdateMessage(updateMessagePrefix('bbo', key), 'bbo', 7n, 8n, UPDATES.bbo);
    expect(() => decodeUpdateMessage(bbo, key, 'book')).toThrow(/of channel bbo/);
    // What JSON cannot carry exactly is refused when written.
    expect(() => encodeUpdateMessage(updateMessagePrefix('marketStats', 'k'), 'marketStats', 1n, 1n, { trades_24h: 1n })).toThrow(/bigint/);
  });

  it('reads JetStream acknowledgements, positive, duplicate and negative', () => {
    expect(decodePublishAck('{"stream":"ER_UPDATES","seq":12}')).toEqual({ seq: 12, duplicate: false });
    expect(decodePublishAck('{"stream":"ER_UPDATES","seq":12,"duplicate":true}')).toEqual({ seq: 12, duplicate: true });
    expect(decodePublishAck('{"stream":"ER_UPDATES","domain":"hub","seq":3}')).toEqual({ seq: 3, duplicate: false });
    // Any other rendering goes through JSON.parse.
    expect(decodePublishAck('{ "seq": 4, "stream": "X", "duplicate": true }')).toEqual({ seq: 4, duplicate: true });
    expect(() => decodePublishAck('{"error":{"code":503,"err_code":10077,"description":"maximum messages exceeded"}}')).toThrow(/maximum messages exceeded/);
    expect(() => decodePublishAck('{"stream":"X"}')).toThrow(/unreadable/);
    expect(() => decodePublishAck('')).toThrow(/unreadable/);
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
      v: BUS_FORMAT_VERSION,
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
    expect(() => decodeSnapshotRecord(JSON.stringify({ ...JSON.parse(text), v: 2 }))).toThrow(/invalid snapshot record: bus format version 2, this reader reads version 3/);
    expect(() => decodeSnapshotRecord(JSON.stringify({ ...JSON.parse(text), operation: 'bbo' }))).toThrow(/not the snapshot of book/);
  });

  it('round-trips a heartbeat', () => {
    const hb: Heartbeat = {
      v: BUS_FORMAT_VERSION,
      relayId: 'r1',
      state: 'running',
      atNs: 1700000000000000000n,
      intervalMs: 1000,
      snapshotRefreshMs: 5000,
      feed: 'open',
      jsStream: 'ER_UPDATES',
      bucket: 'er_snapshots',
      streams: [
        { streamKey: 'bbo|market_id=0|is_perps=true', channel: 'bbo', scope: { market_id: 0, is_perps: true }, subject: 'er.u.bbo.market_id=0.is_perps=true', snapshotKey: 'bbo.market_id=0.is_perps=true', status: 'live', publishedSeq: 7n, snapshotSequence: null, published: 7, duplicates: 0, messages: 3, syncs: 1 },
      ],
    };
    expect(decodeHeartbeat(encodeHeartbeat(hb))).toEqual(hb);
    expect(() => decodeHeartbeat(JSON.stringify({ ...JSON.parse(encodeHeartbeat(hb)), v: 2 }))).toThrow(/bus format version 2, this reader reads version 3/);
  });
});
