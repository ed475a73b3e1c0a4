/** PublishQueue: first in first out, ahead-of-queue inserts, and nothing taken out still referenced by it. */
import { PublishQueue } from '../../src/nats/PublishQueue';

const held = (q: PublishQueue<object>): readonly unknown[] => (q as unknown as { items: unknown[] }).items;

test('first in first out; unshift puts items ahead in their order; takeAll empties it', () => {
  const q = new PublishQueue<string>();
  for (const s of ['a', 'b', 'c']) q.push(s);
  expect(q.shift()).toBe('a');
  q.unshift(['x', 'y']);
  expect(q.length).toBe(4);
  expect(q.shift()).toBe('x');
  expect(q.takeAll()).toEqual(['y', 'b', 'c']);
  expect(q.length).toBe(0);
  expect(q.shift()).toBeUndefined();
});

test('an item taken out is no longer referenced, drained or not, across compactions', () => {
  const q = new PublishQueue<object>();
  const items = Array.from({ length: 5000 }, (_, i) => ({ i }));
  for (const it of items) q.push(it);
  const taken: object[] = [];
  for (let n = 0; n < 3000; n++) taken.push(q.shift()!);
  expect(taken).toEqual(items.slice(0, 3000));
  expect(q.length).toBe(2000);
  const refs = new Set(held(q));
  expect(taken.some((t) => refs.has(t))).toBe(false);
  while (q.length > 0) taken.push(q.shift()!);
  expect(taken).toEqual(items);
  expect(held(q)).toHaveLength(0);
});
