/**
 * OrderedPublisher, a publish the NATS client refuses (it throws in `publish`: a payload over
 * the server's max_payload, a closed connection), on a fake connection. The refused job fails
 * with ERR_BUS naming its subject and the client's reason; nothing of it is in the in-flight
 * window, and the tokens of the window stay consecutive: the answers to the publishes after it
 * are matched while an earlier one still waits (before, the refused publish used up a token
 * and the later answers were not found: those publishes timed out).
 */
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
import { ExchangeReplicaError } from '../../src/errors';
import { OrderedPublisher, type PublishJob } from '../../src/nats/OrderedPublisher';
import type { PublishAck } from '../../src/nats/wire';
import { ManualClock } from '../helpers/ManualClock';

interface Sent {
  readonly msgId: string;
  readonly reply: string;
}

const MAX_PAYLOAD = 10;

/** A connection whose `publish` throws as nats.js does for a payload over max_payload. */
function fakeNats(): { nc: NatsConnection; headers: MsgHdrs; sent: Sent[]; answer: (s: Sent, seq: number) => void } {
  const sent: Sent[] = [];
  let inbox: ((err: Error | null, msg: unknown) => void) | undefined;
  let msgId = '';
  const nc = {
    subscribe: (_subject: string, opts: { callback: (err: Error | null, msg: unknown) => void }) => {
      inbox = opts.callback;
      return { unsubscribe: () => undefined };
    },
    publish: (_subject: string, payload: string, opts: { reply: string }) => {
      if (payload.length > MAX_PAYLOAD) throw new Error("'payload' max_payload size exceeded");
      sent.push({ msgId, reply: opts.reply });
    },
  };
  const headers = { set: (_k: string, v: string) => void (msgId = v) };
  const answer = (s: Sent, seq: number): void => {
    const text = JSON.stringify({ stream: 'S', seq });
    inbox?.(null, { subject: s.reply, data: new TextEncoder().encode(text), string: () => text });
  };
  return { nc: nc as unknown as NatsConnection, headers: headers as unknown as MsgHdrs, sent, answer };
}

function job(id: string, payload: string, log: string[], errors: unknown[] = []): PublishJob {
  return {
    subject: `u.${id}`,
    payload,
    msgID: id,
    wanted: () => true,
    onAck: (a: PublishAck) => log.push(`${id} ack ${a.seq}`),
    onError: (e: unknown) => {
      errors.push(e);
      log.push(`${id} failed`);
    },
  };
}

test('a publish the client refuses fails with ERR_BUS; the answers to later publishes are matched while an earlier one waits', async () => {
  const clock = new ManualClock();
  const { nc, headers, sent, answer } = fakeNats();
  const p = new OrderedPublisher(nc, { maxInFlight: 10, maxQueued: 100, timeoutMs: 5_000, inbox: '_INBOX.t', headers, clock });
  const log: string[] = [];
  const errors: unknown[] = [];
  p.submit(job('a', 'small', log));
  p.submit(job('b', 'x'.repeat(MAX_PAYLOAD + 1), log, errors)); // refused by the client
  p.submit(job('c', 'small', log));
  p.submit(job('d', 'small', log));
  expect(sent.map((s) => s.msgId)).toEqual(['a', 'c', 'd']);
  await Promise.resolve(); // the refused job learns it after its submit returned
  expect(log).toEqual(['b failed']);
  expect(p.pending).toBe(3);
  // c and d answered while a still waits: matched to their publishes.
  answer(sent[1]!, 2);
  answer(sent[2]!, 3);
  expect(log).toEqual(['b failed', 'c ack 2', 'd ack 3']);
  answer(sent[0]!, 1);
  expect(log).toEqual(['b failed', 'c ack 2', 'd ack 3', 'a ack 1']);
  expect(p.pending).toBe(0);
  // Nothing times out later.
  await clock.advance(10_000);
  expect(log).toHaveLength(4);
  const error = errors[0];
  expect(error).toBeInstanceOf(ExchangeReplicaError);
  expect((error as ExchangeReplicaError).code).toBe('ERR_BUS');
  expect((error as Error).message).toMatch(/u\.b/);
  expect((error as Error).message).toMatch(/max_payload size exceeded/);
  expect((error as Error).cause).toBeInstanceOf(Error);
  p.close();
});

test('a refused publish between answered ones leaves nothing outstanding and later publishes pipelined', async () => {
  const clock = new ManualClock();
  const { nc, headers, sent, answer } = fakeNats();
  const p = new OrderedPublisher(nc, { maxInFlight: 2, maxQueued: 100, timeoutMs: 5_000, inbox: '_INBOX.t', headers, clock });
  const log: string[] = [];
  p.submit(job('a', 'x'.repeat(MAX_PAYLOAD + 1), log)); // refused: takes no place in the window
  p.submit(job('b', 'small', log));
  p.submit(job('c', 'small', log));
  p.submit(job('d', 'small', log)); // waits: two in flight
  expect(sent.map((s) => s.msgId)).toEqual(['b', 'c']);
  answer(sent[1]!, 2);
  answer(sent[0]!, 1);
  expect(sent.map((s) => s.msgId)).toEqual(['b', 'c', 'd']);
  answer(sent[2]!, 3);
  await Promise.resolve();
  expect(log.sort()).toEqual(['a failed', 'b ack 1', 'c ack 2', 'd ack 3']);
  expect(p.pending).toBe(0);
  p.close();
});
