import { RESYNC_TRIGGERS } from '../../src/replicas/streamSyncOptions';
import { InvalidTransitionError } from '../../src/replicas/InvalidTransitionError';
import { ReplicaStateMachine, SYNC_STATES, canMove, statusOf } from '../../src/replicas/ReplicaStateMachine';
import { REPLICA_STATUSES, type StatusChange } from '../../src/replicas/ReplicaStatus';
import { STATUS_CODES } from '../../src/replicas/statusCodes';
import { STATUS_TRANSITIONS } from './fixtures';

describe('ReplicaStateMachine', () => {
  it('starts idle (syncing) and emits {from, to, code, reason} when the public status changes', () => {
    const m = new ReplicaStateMachine();
    const seen: StatusChange[] = [];
    m.changes$.subscribe((c) => seen.push(c));
    expect(m.state).toBe('idle');
    expect(m.status).toBe('syncing');
    expect(m.moveTo('syncing', 'subscribed', 'subscription s1')).toBe(false); // still syncing: nothing emitted
    expect(m.moveTo('live_unconfirmed', 'snapshot_applied', 'snapshot 5 applied')).toBe(true);
    expect(m.moveTo('live', 'caught_up', 'the stream reached 5')).toBe(false);
    expect(m.moveTo('resyncing', 'seq_jump', 'seq jumped from 5 to 9')).toBe(true);
    expect(m.moveTo('resyncing_ahead', 'snapshot_applied', 'snapshot 12 ahead')).toBe(false);
    expect(m.moveTo('stale', 'disconnected', 'socket closed')).toBe(true);
    expect(m.moveTo('resyncing', 'subscribed', 'subscription s2')).toBe(true);
    expect(m.moveTo('live', 'snapshot_applied', 'snapshot 9 applied')).toBe(true);
    expect(seen).toEqual([
      { from: 'syncing', to: 'live', code: 'snapshot_applied', reason: 'snapshot 5 applied' },
      { from: 'live', to: 'resyncing', code: 'seq_jump', reason: 'seq jumped from 5 to 9' },
      { from: 'resyncing', to: 'stale', code: 'disconnected', reason: 'socket closed' },
      { from: 'stale', to: 'resyncing', code: 'subscribed', reason: 'subscription s2' },
      { from: 'resyncing', to: 'live', code: 'snapshot_applied', reason: 'snapshot 9 applied' },
    ]);
  });

  it('re-entering a state emits nothing', () => {
    const m = new ReplicaStateMachine('resyncing');
    const seen: StatusChange[] = [];
    m.changes$.subscribe((c) => seen.push(c));
    expect(m.moveTo('resyncing', 'manual', 'again')).toBe(false);
    expect(seen).toEqual([]);
  });

  it('rejects illegal moves and keeps failed terminal', () => {
    const m = new ReplicaStateMachine();
    expect(() => m.moveTo('resyncing', 'manual', 'no state yet')).toThrow(InvalidTransitionError);
    expect(() => m.moveTo('live', 'snapshot_applied', 'not subscribed')).toThrow(/cannot go from idle to live \(snapshot_applied: not subscribed\)/);
    m.moveTo('failed', 'failed_subscription', 'refused');
    for (const s of SYNC_STATES) {
      expect(canMove('failed', s)).toBe(false);
      expect(() => m.moveTo(s, 'subscribed', 'x')).toThrow(/cannot go from failed/);
    }
    expect(m.status).toBe('failed');
  });

  it('the public transitions are exactly those of the internal moves that change the status', () => {
    const derived = new Set<string>();
    for (const from of SYNC_STATES) {
      for (const to of SYNC_STATES) if (canMove(from, to) && statusOf(from) !== statusOf(to)) derived.add(`${statusOf(from)}>${statusOf(to)}`);
    }
    const documented = REPLICA_STATUSES.flatMap((from) => STATUS_TRANSITIONS[from].map((to) => `${from}>${to}`));
    expect([...derived].sort()).toEqual(documented.sort());
  });

  it('every resync trigger is a documented code', () => {
    for (const t of RESYNC_TRIGGERS) expect(typeof STATUS_CODES[t]).toBe('string');
  });
});
