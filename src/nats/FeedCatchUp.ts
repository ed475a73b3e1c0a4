/**
 * A joiner's catch-up: the updates of a running feed that it missed (see BusFeed.join).
 */
import type { Msg } from '@nats-io/transport-node';
import type { BusFeed, CatchUpPlan, FeedReader } from './BusFeed';
import { CONSUMER_INACTIVE_MS, UTF8, type FeedContext } from './FeedRunner';
import { loadNats } from './natsModules';
import { PushConsumer } from './PushConsumer';
import { readSourceUpdates } from './wire';

/**
 * Gives a joiner the updates above the anchor that the feed delivered before it joined: a
 * consumer of its own reads the subject from the anchor's `jsStartSeq` until it passes the
 * last seq delivered at the join (or has nothing more: its idle heartbeat; or stalls), then
 * the reader's queued live updates follow (FeedReader, BusFeed.endCatchUp).
 */
export async function catchUp(ctx: FeedContext, feed: BusFeed, reader: FeedReader, plan: CatchUpPlan): Promise<void> {
  const token = feed.token;
  const joins = reader.joins;
  const current = (): boolean => token === feed.token && joins === reader.joins && reader.queue !== undefined && feed.readers.has(reader);
  let after = plan.after;
  let done = false;
  const end = (): void => {
    if (done) return;
    done = true;
    if (current()) feed.endCatchUp(reader, after);
  };
  const onData = (_m: Msg, data: Uint8Array): void => {
    if (done || !current()) return;
    let batch: ReturnType<typeof readSourceUpdates>;
    try {
      batch = readSourceUpdates(UTF8.decode(data), feed.key, feed.channel, after, ctx.options.clock.nowNs());
    } catch {
      // Skipped, as the feed skipped it (it reported it when it came).
      return;
    }
    // The stream no longer holds the first updates (its limits dropped them): a hole, so that no reader is sent back there again.
    const first = batch.updates[0];
    if (first !== undefined && first.seq > after + 1n) feed.holes.push(after + 1n);
    for (const u of batch.updates) {
      reader.subscriber.next(u);
      after = u.seq;
    }
    if (after >= plan.until) end();
  };
  const handle: { consumer?: PushConsumer; readonly end: () => void } = { end };
  reader.catchUp = handle;
  let consumer: PushConsumer;
  try {
    const mods = await loadNats();
    const spec = { stream: ctx.options.names.stream, subject: feed.subject, startSeq: plan.from, inactiveMs: CONSUMER_INACTIVE_MS, heartbeatMs: ctx.options.heartbeatMs };
    consumer = await PushConsumer.start(mods, ctx.nats(), await ctx.store().manager(), spec, ctx.options.clock.nowMs(), onData, end);
  } catch (e) {
    ctx.report(e);
    return end();
  }
  if (done || !current()) return void consumer.stop();
  handle.consumer = consumer;
}
