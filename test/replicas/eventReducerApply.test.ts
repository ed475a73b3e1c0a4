import { createEventReducer } from '../../src/replicas/eventReducer';

interface Rec {
  readonly sequence: string;
}
const rec = (s: number): Rec => ({ sequence: String(s) });
const reducer = createEventReducer<Rec>({ channel: 'trades', recordsOf: (d) => d as Rec[], sequenceOf: (r) => BigInt(r.sequence) }, { recentLimit: 4 });
const seqs = (xs: readonly Rec[]) => xs.map((r) => Number(r.sequence));

describe('event reducer apply', () => {
  const start = { recent: [rec(1), rec(2), rec(3)], lastSequence: 3n, delivered: [] };

  test('records in order: appended, delivered, recent keeps the newest; the state given is untouched', () => {
    const given = [rec(4), rec(5)];
    const next = reducer.apply(start, given, 2n);
    expect(seqs(next.recent)).toEqual([2, 3, 4, 5]);
    expect(next.lastSequence).toBe(5n);
    expect(next.delivered).toEqual([
      { kind: 'record', sequence: 4n, record: given[0] },
      { kind: 'record', sequence: 5n, record: given[1] },
    ]);
    expect(seqs(start.recent)).toEqual([1, 2, 3]);
    expect(next.recent).not.toBe(given);
  });

  test('out of order and repeated records: sorted, one per sequence (the last one given)', () => {
    const later = rec(5);
    const next = reducer.apply(start, [rec(6), rec(5), rec(4), later], 2n);
    expect(seqs(next.recent)).toEqual([3, 4, 5, 6]);
    expect(next.recent[2]).toBe(later);
    expect(next.delivered.map((d) => (d.kind === 'record' ? d.sequence : -1n))).toEqual([4n, 5n, 6n]);
  });

  test('more records than the limit: only the newest are recent, every fresh one is delivered', () => {
    const next = reducer.apply(start, [4, 5, 6, 7, 8, 9].map(rec), 2n);
    expect(seqs(next.recent)).toEqual([6, 7, 8, 9]);
    expect(next.delivered).toHaveLength(6);
  });

  test('records at or below the watermark are not delivered again; nothing new returns the same state', () => {
    expect(reducer.apply(start, [rec(2), rec(3)], 2n)).toBe(start);
    const behind = { recent: [rec(1)], lastSequence: 3n, delivered: [] };
    const next = reducer.apply(behind, [rec(2), rec(3), rec(4)], 2n);
    expect(seqs(next.recent)).toEqual([1, 2, 3, 4]);
    expect(next.delivered.map((d) => (d.kind === 'record' ? d.sequence : -1n))).toEqual([4n]);
    expect(next.lastSequence).toBe(4n);
  });
});
