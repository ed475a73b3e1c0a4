/**
 * OrderedPublisher across a NATS disconnect, on a fake connection: on a replicated stream
 * (`noLeaderWaitMs` > 0) the publishes awaiting their PubAck are held, nothing is sent while
 * disconnected, and after the reconnect they go again in their order (the first alone until
 * it is answered, then the rest pipelined; same message ids: a copy JetStream already stored
 * is answered as a duplicate), ahead of what was queued meanwhile; none fails. Past the wait they fail when they would be sent again. Without the
 * wait (one server) they fail at once, as before. (The cluster test's gap after a relay node's
 * loss: both relays on the killed node failed the same in-flight publishes and resynced past them.)
 */
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import { OrderedPublisher, type PublishJob } from '../../src/nats/OrderedPublisher';
import type { PublishAck } from '../../src/nats/wire';
import { ManualClock } from '../helpers/ManualClock';

interface Sent {
  readonly subject: string;
  readonly msgId: string;
  readonly reply: string;
}

function fakeNats(): { nc: NatsConnection; sent: Sent[]; answer: (s: Sent, ack: { seq: number; duplicate?: boolean }) => void } {
  const sent: Sent[] = [];
  let inbox: ((err: Error | null, msg: unknown) => void) | undefined;
  let msgId = '';
  const nc = {
    subscribe: (_subject: string, opts: { callback: (err: Error | null, msg: unknown) => void }) => {
      inbox = opts.callback;
      return { unsubscribe: () => undefined };
    },
    // The headers are the shared set the publisher sets `Nats-Msg-Id` on before each call.
    publish: (subject: string, _payload: string, opts: { reply: string }) => void sent.push({ subject, msgId, reply: opts.reply }),
  };
  const headers = { set: (_k: string, v: string) => void (msgId = v) };
  const answer = (s: Sent, ack: { seq: number; duplicate?: boolean }): void => {
    const text = JSON.stringify({ stream: 'S', seq: ack.seq, ...(ack.duplicate ? { duplicate: true } : {}) });
    inbox?.(null, { subject: s.reply, data: new TextEncoder().encode(text), string: () => text });
  };
  (nc as unknown as { headers: typeof headers }).headers = headers;
  return { nc: nc as unknown as NatsConnection, sent, answer };
}

function publisher(nc: NatsConnection, clock: ManualClock, noLeaderWaitMs: number): OrderedPublisher {
  const headers = (nc as unknown as { headers: MsgHdrs }).headers;
  return new OrderedPublisher(nc, { maxInFlight: 10, maxQueued: 100, timeoutMs: 10_000, inbox: '_INBOX.t', headers, clock, noLeaderWaitMs });
}

function job(id: string, log: string[]): PublishJob {
  return { subject: 'u.a', payload: id, msgID: id, wanted: () => true, onAck: (a: PublishAck) => log.push(`${id} ack ${a.seq}${a.duplicate ? ' dup' : ''}`), onError: (e: unknown) => log.push(`${id} failed: ${(e as Error).message}`) };
}

test('a replicated stream: what awaited its PubAck at a disconnect is sent again after the reconnect, in order, ahead of the queue', () => {
  const clock = new ManualClock();
  const { nc, sent, answer } = fakeNats();
  const p = publisher(nc, clock, 30_000);
  const log: string[] = [];
  for (const id of ['a', 'b', 'c']) p.submit(job(id, log));
  answer(sent[0]!, { seq: 1 }); // a stored and acknowledged
  expect(sent.map((s) => s.msgId)).toEqual(['a', 'b', 'c']);
  p.disconnected();
  p.submit(job('d', log)); // queued while disconnected: not sent
  expect(sent.length).toBe(3);
  expect(log).toEqual(['a ack 1']);
  p.reconnected();
  // One at a time until one is answered (a 503 then must not be overtaken by a later publish stored once a leader is up).
  expect(sent.slice(3).map((s) => s.msgId)).toEqual(['b']);
  answer(sent[3]!, { seq: 2, duplicate: true }); // b had been stored before the disconnect
  expect(sent.slice(3).map((s) => s.msgId)).toEqual(['b', 'c', 'd']);
  answer(sent[4]!, { seq: 3 });
  answer(sent[5]!, { seq: 4 });
  expect(log).toEqual(['a ack 1', 'b ack 2 dup', 'c ack 3', 'd ack 4']);
  expect(p.pending).toBe(0);
  p.close();
});

test('a replicated stream: a publish past noLeaderWaitMs when it would be sent again fails', async () => {
  const clock = new ManualClock();
  const { nc, sent } = fakeNats();
  const p = publisher(nc, clock, 1000);
  const log: string[] = [];
  p.submit(job('a', log));
  p.disconnected();
  await clock.advance(1500);
  p.reconnected();
  expect(sent.length).toBe(1);
  expect(log).toEqual([expect.stringMatching(/^a failed: JetStream had no leader/)]);
  p.close();
});

test('one server (no wait): a disconnect fails what awaited its PubAck at once', () => {
  const clock = new ManualClock();
  const { nc } = fakeNats();
  const p = publisher(nc, clock, 0);
  const log: string[] = [];
  p.submit(job('a', log));
  p.disconnected();
  expect(log).toEqual(['a failed: NATS disconnected before JetStream acknowledged the message']);
  p.close();
});
