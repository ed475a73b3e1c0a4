/**
 * What a bus consumer reads of JetStream besides its push consumers: the stream's KV entries
 * (parsed once per revision), the last batch on a subject, the markets metadata, and the
 * JetStream manager its consumers are created and deleted through.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import { ExchangeReplicaError } from '../errors';
import type { BusFeed } from './BusFeed';
import { loadNats } from './natsModules';
import { decodeMarketsMeta, decodeSnapshotRecord, MARKETS_META_KEY, readBatchHead, type BusNames, type MarketsMeta, type SnapshotRecord } from './wire';

export class BusStoreReader {
  private jsm?: Promise<JetStreamManager>;
  private kv?: KV;

  constructor(
    private readonly js: JetStreamClient,
    private readonly names: BusNames,
  ) {}

  /** The JetStream manager (consumers are created and deleted through it), made once. */
  manager(): Promise<JetStreamManager> {
    if (this.jsm === undefined) {
      const made = this.js.jetstreamManager(false);
      this.jsm = made;
      made.catch(() => this.jsm === made && (this.jsm = undefined));
    }
    return this.jsm;
  }

  /** The exchange metadata the relays wrote (markets, tokens), undefined when none did. */
  async marketsMeta(): Promise<MarketsMeta | undefined> {
    const kv = await this.bucket();
    const e = await kv.get(MARKETS_META_KEY);
    if (e === null || e.operation !== 'PUT') return undefined;
    return decodeMarketsMeta(e.string());
  }

  /** The last exchange seq the subject holds (its last message's batch), undefined when it holds none or its last is no batch. */
  async subjectTop(feed: BusFeed): Promise<bigint | undefined> {
    const last = await (await this.manager()).streams.getMessage(this.names.stream, { last_by_subj: feed.subject });
    if (last === null) return undefined;
    try {
      return readBatchHead(last.string(), feed.key).last;
    } catch {
      return undefined;
    }
  }

  /** The stream's KV entry, undefined when there is none (or it was deleted). @throws ExchangeReplicaError `ERR_BUS` for an unreadable one. */
  async readEntry(feed: BusFeed): Promise<SnapshotRecord | undefined> {
    const e = await (await this.bucket()).get(feed.kvKey);
    if (e === null || e.operation !== 'PUT') return undefined;
    // The same revision written at the same time is the same entry: not parsed again (a relay
    // rewrites it every few seconds, the checks read it every second). The revision alone is
    // not enough: a bucket recreated (a memory bucket after a nats-server restart) counts again from 1.
    const cached = feed.entryCache;
    const createdMs = e.created.getTime();
    if (cached !== undefined && cached.revision === e.revision && cached.createdMs === createdMs) return cached.record;
    const record = decodeSnapshotRecord(e.string());
    if (record.streamKey !== feed.key) throw new ExchangeReplicaError('ERR_BUS', `KV entry ${feed.kvKey} holds stream ${record.streamKey}, expected ${feed.key}`, { stream: feed.key });
    feed.entryCache = { revision: e.revision, createdMs, record };
    return record;
  }

  private async bucket(): Promise<KV> {
    if (this.kv === undefined) {
      const mods = await loadNats();
      this.kv = await new mods.kv.Kvm(this.js).open(this.names.bucket);
    }
    return this.kv;
  }
}
