import { InvalidTransitionError, REPLICA_STATUSES, ReplicaStatusMachine, canTransition, type StatusChange } from '../../src/replicas/status';

describe('ReplicaStatusMachine', () => {
  it('starts syncing and emits {from, to, reason} on each change', () => {
    const m = new ReplicaStatusMachine();
    const seen: StatusChange[] = [];
    m.changes$.subscribe((c) => seen.push(c));
    expect(m.status).toBe('syncing');
    expect(m.setState('live', 'snapshot 5 applied')).toBe(true);
    expect(m.setState('resyncing', 'seq_jump')).toBe(true);
    expect(m.setState('stale', 'disconnected')).toBe(true);
    expect(m.setState('resyncing', 'subscribed')).toBe(true);
    expect(m.setState('live', 'snapshot 9 applied')).toBe(true);
    expect(seen).toEqual([
      { from: 'syncing', to: 'live', reason: 'snapshot 5 applied' },
      { from: 'live', to: 'resyncing', reason: 'seq_jump' },
      { from: 'resyncing', to: 'stale', reason: 'disconnected' },
      { from: 'stale', to: 'resyncing', reason: 'subscribed' },
      { from: 'resyncing', to: 'live', reason: 'snapshot 9 applied' },
    ]);
  });

  it('ignores a change to the current status', () => {
    const m = new ReplicaStatusMachine('live');
    const seen: StatusChange[] = [];
    m.changes$.subscribe((c) => seen.push(c));
    expect(m.setState('live', 'again')).toBe(false);
    expect(seen).toEqual([]);
  });

  it('rejects illegal transitions and keeps failed terminal', () => {
    const m = new ReplicaStatusMachine();
    expect(() => m.setState('resyncing', 'no state yet')).toThrow(InvalidTransitionError);
    m.setState('failed', 'refused');
    for (const s of REPLICA_STATUSES.filter((s) => s !== 'failed')) {
      expect(canTransition('failed', s)).toBe(false);
      expect(() => m.setState(s, 'x')).toThrow(/cannot go from failed/);
    }
    expect(m.status).toBe('failed');
  });

  it('every status can fail, and only stale leads back to syncing', () => {
    for (const s of REPLICA_STATUSES) if (s !== 'failed') expect(canTransition(s, 'failed')).toBe(true);
    expect(REPLICA_STATUSES.filter((s) => canTransition(s, 'syncing'))).toEqual(['stale']);
  });
});
