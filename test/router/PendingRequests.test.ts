import { PendingRequests } from '../../src/router';

describe('PendingRequests', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  test('correlates answers by request id and times out the rest', () => {
    const timedOut: Array<[string, string]> = [];
    const p = new PendingRequests<string>(1_000, (id, ctx) => timedOut.push([id, ctx]));
    p.add('1', 'book');
    p.add('2', 'bbo');
    expect(() => p.add('1', 'again')).toThrow(/already pending/);
    expect(p.size).toBe(2);
    jest.advanceTimersByTime(500);
    expect(p.take('2')).toBe('bbo');
    expect(p.take('2')).toBeUndefined();
    expect(p.take('nope')).toBeUndefined();
    jest.advanceTimersByTime(499);
    expect(timedOut).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(timedOut).toEqual([['1', 'book']]);
    expect(p.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });

  test('clear() forgets everything without calling back and releases the timers', () => {
    const onTimeout = jest.fn();
    const p = new PendingRequests<number>(100, onTimeout);
    p.add('a', 1);
    p.add('b', 2);
    p.clear();
    expect(p.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(1_000);
    expect(onTimeout).not.toHaveBeenCalled();
  });
});
