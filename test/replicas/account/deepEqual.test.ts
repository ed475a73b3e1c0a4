import { deepEqual } from '../../../src/replicas/account/diffAccount';

describe('deepEqual (account diffs)', () => {
  test.each<[string, unknown, unknown, boolean]>([
    ['same record', { a: '1', b: [1, { c: true }] }, { a: '1', b: [1, { c: true }] }, true],
    ['key order does not matter', { a: 1, b: 2 }, { b: 2, a: 1 }, true],
    ['a value differs', { a: '1', b: '2' }, { a: '1', b: '3' }, false],
    ['a nested value differs', { a: { b: [1, 2] } }, { a: { b: [1, 3] } }, false],
    ['an extra key', { a: 1 }, { a: 1, b: 2 }, false],
    ['a missing key', { a: 1, b: 2 }, { a: 1 }, false],
    ['same key count, other keys', { a: 1, b: undefined }, { a: 1, c: undefined }, false],
    ['array vs object', [1], { 0: 1 }, false],
    ['array lengths', [1, 2], [1, 2, 3], false],
    ['null vs object', null, {}, false],
    ['primitives', '1', 1, false],
    ['inherited keys are not the record', Object.assign(Object.create({ x: 1 }) as object, { a: 1 }), { a: 1 }, true],
  ])('%s', (_name, a, b, expected) => {
    expect(deepEqual(a, b)).toBe(expected);
    expect(deepEqual(b, a)).toBe(expected);
  });
});
