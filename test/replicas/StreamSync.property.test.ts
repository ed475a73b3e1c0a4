/**
 * StreamSync against a model server, with random interleavings of updates, gaps, silent
 * jumps, disconnects and (possibly stale) snapshot answers: no emission ever mixes two
 * snapshots, and the replica always ends exact. Plus the reconnect storm of 300 streams.
 */
import fc from 'fast-check';
import { ResyncScheduler } from '../../src/replicas/ResyncScheduler';
import { StreamSync } from '../../src/replicas/StreamSync';
import { FakeFetcher, FakeStream, STATUS_TRANSITIONS, fakeSource, settle, waitFor } from './fixtures';
import { SyncHarness, bboScope, fastRetry, tapeReducer, type Tape } from './SyncHarness';
import { WAIT_MS } from '../helpers/deadlines';

type Command =
  | { kind: 'update' }
  | { kind: 'gap'; skip: number } // the server skips updates and says so
  | { kind: 'jump'; skip: number } // the client misses updates silently
  | { kind: 'reconnect' }
  | { kind: 'answer'; lag: number }; // answer a pending fetch with a snapshot `lag` behind

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'update' } as const) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((skip) => ({ kind: 'gap', skip }) as const) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3 }).map((skip) => ({ kind: 'jump', skip }) as const) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reconnect' } as const) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 3 }).map((lag) => ({ kind: 'answer', lag }) as const) },
);

/** Checks one emission: the state is one snapshot plus a contiguous run of updates after it. */
function checkEmission(e: { state: Tape; seq: bigint; snapshotId: number }, tags: Map<number, string>): void {
  const S = BigInt(e.state.snapshot.split('@')[1]!);
  e.state.applied.forEach((seq, i) => expect(seq).toBe(S + 1n + BigInt(i)));
  expect(e.seq).toBe(S + BigInt(e.state.applied.length));
  const tag = tags.get(e.snapshotId);
  if (tag === undefined) tags.set(e.snapshotId, e.state.snapshot);
  else expect(tag).toBe(e.state.snapshot);
}

describe('StreamSync (property)', () => {
  it('never shows a mixed state and converges to the server', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40 }), async (commands) => {
        const h = new SyncHarness({ retryAfterMs: 1 });
        const tags = new Map<number, string>();
        let serverSeq = 0;
        let answered = 0;
        const answerPending = (lag: number) => {
          const call = h.fetcher.calls[answered];
          if (!call || call.signal.aborted) {
            if (call) answered++;
            return;
          }
          answered++;
          const S = Math.max(0, serverSeq - lag);
          call.resolve({ data: { tag: `snap${answered}@${S}` }, sequence: String(S) });
        };
        try {
          h.stream.subscribed();
          for (const c of commands) {
            switch (c.kind) {
              case 'update':
                h.stream.update(++serverSeq, {});
                break;
              case 'gap':
                serverSeq += c.skip;
                h.stream.resyncRequired('gap');
                h.stream.update(++serverSeq, {});
                break;
              case 'jump':
                serverSeq += c.skip;
                h.stream.update(++serverSeq, {});
                break;
              case 'reconnect':
                h.stream.disconnected('drop');
                h.stream.subscribed();
                break;
              case 'answer':
                answerPending(c.lag);
                break;
            }
            await settle(10);
          }
          // Quiesce: answer with exact snapshots until the replica is live at the server's seq.
          while (!(h.sync.status === 'live' && h.sync.latest?.seq === BigInt(serverSeq))) {
            if (h.sync.status === 'live') h.stream.update(++serverSeq, {});
            else {
              await h.fetcher.callAt(answered);
              while (answered < h.fetcher.calls.length) answerPending(0);
            }
            await settle(10);
          }
          for (const e of h.emissions) checkEmission(e, tags);
          for (const s of h.statuses) expect(STATUS_TRANSITIONS[s.from]).toContain(s.to);
        } finally {
          h.close();
        }
      }),
      { numRuns: 60, seed: 20240611 },
    );
  });
});

describe('resync storm', () => {
  it('300 streams sync and resync after a reconnect with at most `concurrency` fetches in flight', async () => {
    const scheduler = new ResyncScheduler({ concurrency: 4, retry: fastRetry });
    const fetcher = new FakeFetcher();
    let inFlight = 0;
    let maxInFlight = 0;
    let answers = 0;
    fetcher.auto = async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      answers++;
      return { data: { tag: `t@${answers}` }, sequence: '0' };
    };
    const streams = Array.from({ length: 300 }, () => new FakeStream());
    const syncs = streams.map((s, i) =>
      new StreamSync<Tape>({ channel: 'bbo', scope: { ...bboScope, market_id: i }, reducer: tapeReducer, source: fakeSource(s, fetcher), scheduler }).start(),
    );
    try {
      for (const s of streams) s.subscribed();
      await Promise.all(syncs.map((s) => waitFor(s.states$, (e) => e.status === 'live' && e.snapshotId === 1, WAIT_MS)));
      for (const s of streams) s.disconnected('connection lost');
      expect(syncs.every((s) => s.status === 'stale')).toBe(true);
      for (const s of streams) s.subscribed();
      await Promise.all(syncs.map((s) => waitFor(s.states$, (e) => e.status === 'live' && e.snapshotId === 2, WAIT_MS)));
      expect(answers).toBe(600);
      expect(maxInFlight).toBe(4);
    } finally {
      for (const s of syncs) s.close();
      scheduler.close();
    }
  });
});
