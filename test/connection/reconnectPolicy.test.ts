import fc from 'fast-check';
import { abortableDelay, Connection, ReconnectPolicy, reconnectLoop, resolveConnectionOptions } from '../../src/connection';

const policyOptions = (o: Partial<ReturnType<typeof resolveConnectionOptions>['reconnect']> = {}) => ({ ...resolveConnectionOptions({ url: 'ws://x' }).reconnect, ...o });

describe('ReconnectPolicy', () => {
  test('defaults: 250 ms, x2, capped at 10 s, jitter 0.5, stable after 30 s, unlimited attempts', () => {
    expect(resolveConnectionOptions({ url: 'ws://x' })).toMatchObject({
      heartbeatIntervalMs: 15_000,
      pongTimeoutMs: 10_000,
      connectTimeoutMs: 10_000,
      reconnect: { initialDelayMs: 250, maxDelayMs: 10_000, factor: 2, jitter: 0.5, stableAfterMs: 30_000, maxAttempts: Number.POSITIVE_INFINITY },
    });
  });

  test('every delay lies in [base * (1 - jitter), base] with base = min(max, initial * factor^attempt)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.double({ min: 1, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 80 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (initial, extra, factor, jitter, attempt, r) => {
          const maxDelayMs = initial + extra;
          const p = new ReconnectPolicy(policyOptions({ initialDelayMs: initial, maxDelayMs, factor, jitter }), () => r);
          const base = Math.min(maxDelayMs, initial * factor ** attempt);
          const d = p.delayFor(attempt);
          return d >= Math.floor(base * (1 - jitter)) && d <= Math.ceil(base) && d <= maxDelayMs;
        },
      ),
      { seed: 20240611, numRuns: 500 },
    );
  });

  test('counts attempts, reports exhaustion, resets', () => {
    const p = new ReconnectPolicy(policyOptions({ maxAttempts: 2, jitter: 0 }), () => 0);
    expect(p.nextDelay()).toBe(250);
    expect(p.exhausted).toBe(false);
    expect(p.nextDelay()).toBe(500);
    expect(p.exhausted).toBe(true);
    p.reset();
    expect(p.attempts).toBe(0);
    expect(p.nextDelay()).toBe(250);
  });

  test('bad options are refused with the parameter named', () => {
    expect(() => new Connection({ url: 'ws://x', heartbeatIntervalMs: 60_000 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_PARAMETER', param: 'heartbeatIntervalMs' }));
    expect(() => new Connection({ url: 'ws://x', reconnect: { jitter: 2 } })).toThrow(expect.objectContaining({ param: 'reconnect.jitter' }));
    expect(() => new Connection({ url: 'ws://x', reconnect: { maxAttempts: 0 } })).toThrow(expect.objectContaining({ param: 'reconnect.maxAttempts' }));
  });
});

describe('reconnectLoop', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  test('waits the policy delay before each attempt and resolves with the first success', async () => {
    const p = new ReconnectPolicy(policyOptions({ initialDelayMs: 100, jitter: 0 }), () => 0);
    const times: number[] = [];
    const result = reconnectLoop(p, async () => {
      times.push(Date.now());
      if (times.length < 3) throw new Error('refused');
      return 'ok';
    }, new AbortController().signal);
    await jest.advanceTimersByTimeAsync(1_000);
    await expect(result).resolves.toBe('ok');
    expect(times).toEqual([100, 300, 700]);
  });

  test('abort stops the loop at once with the abort reason and leaves no timer', async () => {
    const p = new ReconnectPolicy(policyOptions({ initialDelayMs: 100, jitter: 0 }), () => 0);
    const ac = new AbortController();
    let calls = 0;
    const result = reconnectLoop(p, async () => {
      calls++;
      throw new Error('refused');
    }, ac.signal);
    const settled = expect(result).rejects.toThrow('stop');
    await jest.advanceTimersByTimeAsync(150);
    ac.abort(new Error('stop'));
    await settled;
    expect(calls).toBe(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  test('abortableDelay rejects immediately on an aborted signal', async () => {
    const ac = new AbortController();
    ac.abort(new Error('already'));
    await expect(abortableDelay(10, ac.signal)).rejects.toThrow('already');
    expect(jest.getTimerCount()).toBe(0);
  });
});
