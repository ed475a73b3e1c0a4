/**
 * The relay's publisher through the loss of a stream leader's node, on a real 3-node
 * nats-server cluster (test/nats/natsCluster.ts), an R3 stream: publishes answered 503 (no
 * leader during the election) or never answered (taken by the dying leader) are sent again in
 * order (`noLeaderWaitMs`), so each subject is stored complete and in order, every message once;
 * a subject whose order could not be kept is reported by a failed publish, never silently.
 * Without the wait, the same loss fails publishes (what made every relay break its epochs at
 * once, leaving holes on every subject). Publisher connected to a node that stays up; every
 * wait is for an event, bounded only to catch a hang.
 */
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect, createInbox, headers, nanos, type NatsConnection } from '@nats-io/transport-node';
import { systemClock } from '../../src/clock';
import { UPDATE_HEADERS } from '../../src/nats/busProtocol';
import { OrderedPublisher, type PublishJob } from '../../src/nats/OrderedPublisher';
import { waitUntil } from './busHarness';
import { NatsCluster } from './natsCluster';

/** JetStream API requests during and right after an election on a loaded machine: a hang guard, not nats.js's 5 s default. */
const JS_TIMEOUT_MS = 60_000;

jest.setTimeout(6 * 60_000);

const WAIT_MS = 120_000;
/** One attempt of a request repeated until WAIT_MS (see storedIndexes). */
const POLL_TIMEOUT_MS = 2_000;
const SUBJECTS = ['cp.a', 'cp.b', 'cp.c'] as const;

let cluster: NatsCluster | undefined;
const conns: NatsConnection[] = [];
afterAll(async () => {
  for (const c of conns) await c.close().catch(() => undefined);
  await cluster?.stop();
});

interface Run {
  readonly acked: number;
  readonly failed: { subject: string; i: number; error: string }[];
  /** Per subject, the indexes of the messages as stored, in stream order. */
  readonly stored: Record<string, number[]>;
}

/**
 * The stream's messages of each subject, in stream order, read through an ordered consumer
 * (a direct read per sequence took 4,500 API requests a run). Right after the leader's loss a
 * request may go unanswered: each attempt waits `POLL_TIMEOUT_MS` and is made again (a request
 * with JS_TIMEOUT_MS made one lost request cost a minute); WAIT_MS bounds them all.
 */
async function storedIndexes(nc: NatsConnection, stream: string): Promise<Record<string, number[]>> {
  // No API check on creation: that is a request too, which the election may leave unanswered.
  const jsm = await jetstreamManager(nc, { timeout: POLL_TIMEOUT_MS, checkAPI: false });
  // Once the stream has a leader again (the election may still run).
  const info = await waitUntil(() => jsm.streams.info(stream).catch(() => undefined), `${stream} answering`, WAIT_MS, 100);
  const js = jetstream(nc, { timeout: POLL_TIMEOUT_MS });
  const consumer = await waitUntil(() => js.consumers.get(stream).catch(() => undefined), `an ordered consumer on ${stream}`, WAIT_MS, 100);
  const out: Record<string, number[]> = {};
  const deadline = Date.now() + WAIT_MS;
  for (let seen = 0; seen < info.state.messages; ) {
    if (Date.now() > deadline) throw new Error(`${stream}: read ${seen} of ${info.state.messages} stored messages within ${WAIT_MS} ms`);
    for await (const m of await consumer.fetch({ max_messages: 1000, expires: POLL_TIMEOUT_MS })) {
      (out[m.subject] ??= []).push(Number(m.string()));
      seen++;
    }
  }
  await consumer.delete().catch(() => undefined);
  return out;
}

/**
 * Publishes `perSubject` numbered messages on each subject at a steady pace, kills the node of
 * the stream's leader once a third are acknowledged, and waits for every publish to settle.
 */
async function publishThroughLeaderLoss(c: NatsCluster, stream: string, noLeaderWaitMs: number, perSubject: number): Promise<Run> {
  const jsm0 = await jetstreamManager(conns[0]!, { timeout: JS_TIMEOUT_MS });
  await jsm0.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`], num_replicas: 3, storage: StorageType.Memory, duplicate_window: nanos(120_000) });
  const leaderName = await waitUntil(async () => (await jsm0.streams.info(stream)).cluster?.leader || undefined, 'a stream leader', WAIT_MS);
  const leader = c.node(leaderName);
  // The publisher on a node that stays up.
  const home = c.nodes.find((n) => n !== leader)!;
  const nc = await connect({ servers: home.url, maxReconnectAttempts: -1 });
  conns.push(nc);
  const h = headers();
  h.set(UPDATE_HEADERS.relay, 'cluster-publisher-test');
  const publisher = new OrderedPublisher(nc, { maxInFlight: 256, maxQueued: 100_000, timeoutMs: 5000, inbox: createInbox(), headers: h, clock: systemClock, noLeaderWaitMs });
  let acked = 0;
  const failed: Run['failed'] = [];
  const job = (subject: string, i: number): PublishJob => ({
    subject,
    payload: String(i),
    msgID: `${subject}#${i}`,
    wanted: () => true,
    onAck: () => void acked++,
    onError: (e) => void failed.push({ subject, i, error: String(e) }),
  });
  const prefix = stream.toLowerCase();
  let next = 0;
  let killed: Promise<void> | undefined;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      for (let k = 0; k < 5 && next < perSubject; k++, next++) for (const s of SUBJECTS) publisher.submit(job(`${prefix}.${s}`, next));
      if (killed === undefined && acked >= (perSubject * SUBJECTS.length) / 3) killed = leader.kill();
      if (next >= perSubject) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
  await killed;
  await waitUntil(() => acked + failed.length === perSubject * SUBJECTS.length || undefined, 'every publish settled', WAIT_MS);
  publisher.close();
  const stored = await storedIndexes(nc, stream);
  // The node back (and current) for the next run.
  await leader.launch();
  await c.waitHealthy(c.nodes, WAIT_MS);
  return { acked, failed, stored };
}

/** Per subject: where the stored order skips or goes back, which must each be a reported failure. */
function silentBreaks(run: Run, prefix: string): string[] {
  const out: string[] = [];
  for (const s of SUBJECTS) {
    const subject = `${prefix}.${s}`;
    const failedHere = run.failed.filter((f) => f.subject === subject);
    let top = -1;
    for (const i of run.stored[subject] ?? []) {
      if (i !== top + 1 && failedHere.length === 0) out.push(`${subject}: ${i} stored after ${top}`);
      top = Math.max(top, i);
    }
    if (top < 0 && failedHere.length === 0) out.push(`${subject}: nothing stored`);
  }
  return out;
}

beforeAll(async () => {
  cluster = await NatsCluster.start(3);
  conns.push(await connect({ servers: cluster.urls }));
});

it('sends publishes answered 503 or never answered again, in order: each subject complete, in order, once', async () => {
  const perSubject = 1500;
  const run = await publishThroughLeaderLoss(cluster!, 'CPWAIT', 60_000, perSubject);
  expect(silentBreaks(run, 'cpwait')).toEqual([]);
  expect(run.failed).toEqual([]);
  for (const s of SUBJECTS) expect(run.stored[`cpwait.${s}`]).toEqual(Array.from({ length: perSubject }, (_x, i) => i));
  expect(run.acked).toBe(perSubject * SUBJECTS.length);
});

it('without the wait, the same loss fails publishes (each reported: no silent hole)', async () => {
  const run = await publishThroughLeaderLoss(cluster!, 'CPFAIL', 0, 1500);
  expect(run.failed.length).toBeGreaterThan(0);
  expect(silentBreaks(run, 'cpfail')).toEqual([]);
});
