/**
 * The relay's pipelined publisher on a real nats-server: core NATS publishes with
 * `Nats-Msg-Id`, JetStream's acknowledgements on one shared inbox, matched to their
 * publishes; negative answers, missing answers (one timer), a disconnect and a close each
 * fail a publish exactly once; the window and the queue bound what is outstanding.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { createInbox, headers, type NatsConnection } from '@nats-io/transport-node';
import { systemClock } from '../../src/clock';
import { UPDATE_HEADERS, type PublishAck } from '../../src/nats/busProtocol';
import { OrderedPublisher, type OrderedPublisherOptions, type PublishJob } from '../../src/nats/OrderedPublisher';
import { natsConnect, waitUntil } from './busHarness';
import { NatsServer } from './natsServer';

let server: NatsServer;
let nc: NatsConnection;
const STREAM = 'OP_TEST';

beforeAll(async () => {
  server = await NatsServer.start();
  nc = await natsConnect(server.url);
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: STREAM, subjects: ['op.>'], duplicate_window: 60_000_000_000 });
});
afterAll(async () => {
  await nc?.close();
  await server?.stop();
});

type Outcome = { ack: PublishAck } | { error: string };

/** A job whose outcomes are recorded (each must come once). */
function job(subject: string, payload: string, msgID: string, outcomes: Map<string, Outcome[]>, wanted = () => true): PublishJob {
  const record = (o: Outcome) => outcomes.set(msgID, [...(outcomes.get(msgID) ?? []), o]);
  return { subject, payload, msgID, wanted, onAck: (ack) => record({ ack }), onError: (e) => record({ error: String(e) }) };
}

function publisher(overrides: Partial<OrderedPublisherOptions> = {}): OrderedPublisher {
  const h = headers();
  h.set(UPDATE_HEADERS.relay, 'test-relay');
  return new OrderedPublisher(nc, { maxInFlight: 64, maxQueued: 1000, timeoutMs: 10_000, inbox: createInbox(), headers: h, clock: systemClock, ...overrides });
}

it('stores messages in submission order, each acknowledged once with its sequence, duplicates by message id', async () => {
  const p = publisher({ maxInFlight: 8 });
  const outcomes = new Map<string, Outcome[]>();
  const ids = Array.from({ length: 300 }, (_, i) => `m#${i}`);
  for (const id of ids) expect(p.submit(job('op.a', `payload ${id}`, id, outcomes))).toBe(true);
  // The same ids again: JetStream keeps the first copies.
  for (const id of ids.slice(0, 10)) p.submit(job('op.a', 'again', id, outcomes));
  await waitUntil(() => p.pending === 0 && outcomes.size === ids.length && ids.slice(0, 10).every((id) => outcomes.get(id)?.length === 2), 'every publish settled');
  const acks = ids.map((id) => outcomes.get(id)!);
  const firsts = acks.map((o) => (o[0] as { ack: PublishAck }).ack);
  // Consecutive JetStream sequences in submission order.
  for (let i = 1; i < firsts.length; i++) expect(firsts[i]!.seq).toBe(firsts[i - 1]!.seq + 1);
  expect(firsts.every((a) => !a.duplicate)).toBe(true);
  for (let i = 0; i < 10; i++) {
    expect(acks[i]).toHaveLength(2);
    expect(acks[i]![1]).toEqual({ ack: { seq: firsts[i]!.seq, duplicate: true } });
  }
  for (let i = 10; i < ids.length; i++) expect(acks[i]).toHaveLength(1);
  // The stored messages carry the headers.
  const jsm = await jetstreamManager(nc);
  const stored = await jsm.streams.getMessage(STREAM, { seq: firsts[5]!.seq });
  expect(stored?.header.get(UPDATE_HEADERS.msgId)).toBe('m#5');
  expect(stored?.header.get(UPDATE_HEADERS.relay)).toBe('test-relay');
  expect(stored?.string()).toBe('payload m#5');
  p.close();
});

it('fails a publish no stream takes, one JetStream does not answer (one timer), and drops unwanted jobs unsent', async () => {
  const p = publisher({ timeoutMs: 300 });
  const outcomes = new Map<string, Outcome[]>();
  // No stream and no subscriber: the server answers "no responders".
  p.submit(job('nostream.x', 'x', 'n1', outcomes));
  // A plain subscriber and no stream: nobody answers.
  const silent = nc.subscribe('silent.x', { callback: () => undefined });
  await nc.flush();
  for (let i = 0; i < 5; i++) p.submit(job('silent.x', 'x', `s${i}`, outcomes));
  p.submit(job('op.b', 'x', 'dropped', outcomes, () => false));
  p.submit(job('op.b', 'x', 'kept', outcomes));
  await waitUntil(() => outcomes.size === 7 && p.pending === 0, 'every publish settled');
  expect(outcomes.get('n1')).toEqual([{ error: expect.stringMatching(/did not take the message: 503/) }]);
  for (let i = 0; i < 5; i++) expect(outcomes.get(`s${i}`)).toEqual([{ error: expect.stringMatching(/no acknowledgement from JetStream within 300 ms/) }]);
  expect(outcomes.has('dropped')).toBe(false);
  expect(outcomes.get('kept')).toEqual([{ ack: expect.objectContaining({ duplicate: false }) }]);
  silent.unsubscribe();
  p.close();
});

it('bounds the window and the queue; a disconnect fails what is outstanding, a close what is left', async () => {
  const p = publisher({ maxInFlight: 2, maxQueued: 3 });
  const outcomes = new Map<string, Outcome[]>();
  const silent = nc.subscribe('silent.y', { callback: () => undefined });
  await nc.flush();
  const accepted = Array.from({ length: 6 }, (_, i) => p.submit(job('silent.y', 'y', `w${i}`, outcomes)));
  // Two sent, three queued, the sixth refused.
  expect(accepted).toEqual([true, true, true, true, true, false]);
  expect(p.pending).toBe(5);
  p.disconnected();
  // The two outstanding failed; two queued ones took their places (the window), one waits.
  expect(outcomes.get('w0')).toEqual([{ error: expect.stringMatching(/disconnected/) }]);
  expect(outcomes.get('w1')).toEqual([{ error: expect.stringMatching(/disconnected/) }]);
  expect(p.pending).toBe(3);
  p.close();
  for (const id of ['w2', 'w3', 'w4']) expect(outcomes.get(id)).toEqual([{ error: expect.stringMatching(/closed/) }]);
  expect(outcomes.has('w5')).toBe(false);
  expect(p.pending).toBe(0);
  expect(p.submit(job('op.c', 'z', 'late', outcomes))).toBe(false);
  silent.unsubscribe();
});
