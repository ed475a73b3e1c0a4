/**
 * How the readers of a bus feed join it, and join again: each join takes a new subscription
 * id (a reader's snapshot request names the join it follows) and a generation (readers that
 * join together share one); a joiner that lacks updates the feed delivered catches up from
 * JetStream (BusFeed.join, FeedCatchUp.ts). No join touches the feed's own consumer.
 */
import type { BusFeed, FeedReader } from './BusFeed';
import { catchUp } from './FeedCatchUp';
import type { FeedContext } from './FeedRunner';
import type { SnapshotRecord } from './wire';

export class FeedJoins {
  private generation = 0;
  /** Joins so far: numbers each reader's subscription id. */
  private joins = 0;

  constructor(private readonly ctx: FeedContext) {}

  /** Readers of a running feed that are not up join it: the anchor, then a catch-up from JetStream (no new feed consumer). */
  rejoinWaiting(feed: BusFeed): void {
    let generation: number | undefined;
    for (const r of feed.readers) {
      if (r.up) continue;
      generation ??= ++this.generation;
      this.join(feed, r, generation);
    }
  }

  /** `reader` (every reader when undefined) starts again from the anchor (and catches up), without touching the consumer. */
  rejoin(feed: BusFeed, reader: FeedReader | undefined): void {
    if (reader === undefined) return this.rejoinAll(feed);
    this.join(feed, reader, ++this.generation);
  }

  /** Every reader starts again from the anchor (and catches up), without touching the consumer. */
  rejoinAll(feed: BusFeed): void {
    const generation = ++this.generation;
    for (const r of feed.readers) this.join(feed, r, generation);
  }

  /** `reader` joins from `from`, in a generation of its own. */
  joinFrom(feed: BusFeed, reader: FeedReader, from: SnapshotRecord): void {
    this.join(feed, reader, ++this.generation, from);
  }

  /** `reader` joins from `from` (the feed's anchor unless told), catching up when updates above it were delivered. */
  private join(feed: BusFeed, reader: FeedReader, generation: number, from: SnapshotRecord | undefined = feed.anchor): void {
    const plan = feed.join(reader, this.subscriptionId(feed, from), generation, from);
    if (plan !== undefined) void catchUp(this.ctx, feed, reader, plan);
  }

  /** A new id per join (the reader it went to can be told from the others of its feed). */
  private subscriptionId(feed: BusFeed, from: SnapshotRecord | undefined): string {
    return `${feed.subject}@${from?.jsStartSeq ?? 0}#${++this.joins}`;
  }
}
