import { UpdateBuffer } from '../../src/replicas/UpdateBuffer';

const u = (seq: number) => ({ seq: BigInt(seq), timestampNs: 0n, receivedAtNs: 0n, data: seq });

describe('UpdateBuffer', () => {
  it('keeps the newest `capacity` updates, oldest first', () => {
    const b = new UpdateBuffer(3);
    for (let i = 1; i <= 10; i++) b.push(u(i));
    expect(b.toArray().map((x) => Number(x.seq))).toEqual([8, 9, 10]);
    expect(b.length).toBe(3);
    b.clear();
    expect(b.toArray()).toEqual([]);
  });

  it('stays bounded under a long stream', () => {
    const b = new UpdateBuffer(100);
    for (let i = 1; i <= 100_000; i++) b.push(u(i));
    expect(b.length).toBe(100);
    expect(Number(b.toArray()[0]!.seq)).toBe(99_901);
  });
});
