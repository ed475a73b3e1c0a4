/**
 * Whether a bus consumer may believe a stream's KV entry that is ahead of what its feed
 * delivered: only an entry a relay could have written is started from or given as an answer.
 * An entry no relay could have written (forged, or of another bus) is reported once.
 */
import { ExchangeReplicaError } from '../errors';
import { entryId, type BusFeed } from './BusFeed';
import type { FeedContext } from './FeedRunner';
import { permissionError } from './natsAuth';
import type { SnapshotRecord } from './wire';

export class EntryTrust {
  constructor(private readonly ctx: FeedContext) {}

  /**
   * Whether a relay could have written `entry`: the subject holds its seq (`held`: a relay
   * writes an entry once S + 1, or the batch ending at S, is stored), or a relay's heartbeat
   * vouches for it (a relay that resynced past updates it never published writes an entry
   * ahead of the subject, and says so in its next heartbeat: its snapshot sequence).
   */
  async believable(feed: BusFeed, entry: SnapshotRecord): Promise<{ believed: boolean; held: boolean; top: bigint | undefined }> {
    const top = await this.ctx.store().subjectTop(feed).catch((e: unknown) => (this.ctx.report(permissionError(e, `reading the last message of ${feed.subject}`) ?? e), undefined));
    const held = top !== undefined && top >= entry.sequence;
    const vouched = this.ctx.heartbeats.vouchedFor(feed.key);
    return { believed: held || (vouched !== undefined && vouched >= entry.sequence), held, top };
  }

  /**
   * An entry not started from: reported once per entry, but not at first sight. A relay writes an
   * entry after the heartbeat that will vouch for it may have been sent, and heartbeats come late
   * on a loaded machine: said once two heartbeats a relay later (the waiting feed is checked on
   * each one) none vouched for it.
   */
  reportUnbelieved(feed: BusFeed, entry: SnapshotRecord, top: bigint | undefined): void {
    const id = entryId(entry);
    const heartbeats = this.ctx.heartbeats.count;
    if (feed.unbelieved?.id !== id) {
      feed.unbelieved = { id, heartbeats, reported: false };
      return;
    }
    if (feed.unbelieved.reported || heartbeats < feed.unbelieved.heartbeats + 2 * Math.max(1, this.ctx.heartbeats.relayCount)) return;
    feed.unbelieved.reported = true;
    this.ctx.report(new ExchangeReplicaError('ERR_BUS', `the KV entry of ${feed.key} (S=${entry.sequence}) is ahead of the stream (at ${top ?? 'no update'}) and no relay heartbeat vouches for it: waiting for one, or for the next write`, { stream: feed.key }));
  }

  /** Marks `entry` refused for this feed (reported once per entry). */
  refuse(feed: BusFeed, entry: SnapshotRecord, top: bigint | undefined): void {
    const id = entryId(entry);
    if (feed.refused === id || !feed.usable(entry)) return;
    feed.refused = id;
    this.ctx.report(new ExchangeReplicaError('ERR_BUS', `the KV entry of ${feed.key} (S=${entry.sequence}, written as relay ${JSON.stringify(entry.relayId.slice(0, 128))}) is ahead of the stream, which keeps moving below it (the subject holds up to ${top ?? 'no update'}): no relay could have written it; not used`, { stream: feed.key }));
  }
}
