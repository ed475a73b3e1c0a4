/** The reconnect policy: the library's backoff shape with the connection's defaults, and the loop that applies it. */
import fc from 'fast-check';
import { Backoff } from '../../src/clock';
import { Connection, reconnectLoop, resolveConnectionOptions, resolveReconnectPolicy, type ReconnectPolicyOptions } from '../../src/connection';
import { ConnectionFailedError } from '../../src/errors';
import { ManualClock } from '../helpers/ManualClock';

const backoff = (o: ReconnectPolicyOptions = {}, random: () => number = () => 0) => new Backoff(resolveReconnectPolicy(o), random);
const never = () => false;

describe('reconnect policy', () => {
  test('defaults: 250 ms, x2, capped at 10 s, jitter 0.5, unlimited retries, stable after 30 s', () => {
    expect(resolveConnectionOptions({ url: 'ws://x' })).toMatchObject({
      heartbeatIntervalMs: 15_000,
      pongTimeoutMs: 10_000,
      connectTimeoutMs: 10_000,
      reconnect: { initialDelayMs: 250, maxDelayMs: 10_000, factor: 2, jitter: 0.5, retries: Number.POSITIVE_INFINITY, stableAfterMs: 30_000 },
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
          const b = backoff({ initialDelayMs: initial, maxDelayMs, factor, jitter }, () => r);
          const base = Math.min(maxDelayMs, initial * factor ** attempt);
          const d = b.delayFor(attempt);
          return d >= Math.floor(base * (1 - jitter)) && d <= Math.ceil(base) && d <= maxDelayMs;
        },
      ),
      { seed: 20240611, numRuns: 500 },
    );
  });

  test('counts attempts, reports exhaustion, resets', () => {
    const b = backoff({ retries: 2, jitter: 0 });
    expect(b.next()).toBe(250);
    expect(b.exhausted).toBe(false);
    expect(b.next()).toBe(500);
    expect(b.exhausted).toBe(true);
    expect(b.next()).toBeUndefined();
    b.reset();
    expect(b.attempts).toBe(0);
    expect(b.next()).toBe(250);
  });

  test('bad options are refused with the parameter named', () => {
    expect(() => new Connection({ url: 'ws://x', heartbeatIntervalMs: 60_000 })).toThrow(expect.objectContaining({ code: 'ERR_INVALID_PARAMETER', param: 'heartbeatIntervalMs' }));
    expect(() => new Connection({ url: 'ws://x', reconnect: { jitter: 2 } })).toThrow(expect.objectContaining({ param: 'reconnect.jitter' }));
    expect(() => new Connection({ url: 'ws://x', reconnect: { retries: -1 } })).toThrow(expect.objectContaining({ param: 'reconnect.retries' }));
    expect(() => new Connection({ url: 'ws://x', reconnect: { retries: 1.5 } })).toThrow(expect.objectContaining({ param: 'reconnect.retries' }));
    expect(() => new Connection({ url: 'ws://x', reconnect: { initialDelayMs: 100, maxDelayMs: 50 } })).toThrow(expect.objectContaining({ param: 'reconnect.maxDelayMs' }));
    expect(() => new Connection({ url: 'ws://x', reconnect: { stableAfterMs: -1 } })).toThrow(expect.objectContaining({ param: 'reconnect.stableAfterMs' }));
  });
});

describe('reconnectLoop (manual clock)', () => {
  test('waits the backoff delay before each attempt and resolves with the first success', async () => {
    const clock = new ManualClock();
    const times: number[] = [];
    const result = reconnectLoop(
      backoff({ initialDelayMs: 100, jitter: 0 }),
      async () => {
        times.push(clock.nowMs());
        if (times.length < 3) throw new Error('refused');
        return 'ok';
      },
      { signal: new AbortController().signal, clock, isFatal: never },
    );
    await clock.advance(1_000);
    await expect(result).resolves.toBe('ok');
    expect(times).toEqual([100, 300, 700]);
    expect(clock.pendingTimers).toBe(0);
  });

  test('abort stops the loop at once with the abort reason and leaves no timer', async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    let calls = 0;
    const result = reconnectLoop(
      backoff({ initialDelayMs: 100, jitter: 0 }),
      async () => {
        calls++;
        throw new Error('refused');
      },
      { signal: ac.signal, clock, isFatal: never },
    );
    const settled = expect(result).rejects.toThrow('stop');
    await clock.advance(150);
    ac.abort(new Error('stop'));
    await settled;
    expect(calls).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  test('a fatal failure ends the loop with that error; exhaustion ends it with the last failure', async () => {
    const clock = new ManualClock();
    const fatal = new ConnectionFailedError('no socket class');
    const first = reconnectLoop(backoff({ jitter: 0 }), () => Promise.reject(fatal), { signal: new AbortController().signal, clock, isFatal: (e) => e instanceof ConnectionFailedError });
    const firstSettled = expect(first).rejects.toBe(fatal);
    await clock.advance(250);
    await firstSettled;

    let n = 0;
    const spent = backoff({ initialDelayMs: 10, jitter: 0, retries: 2 });
    const second = reconnectLoop(spent, () => Promise.reject(new Error(`refused ${++n}`)), { signal: new AbortController().signal, clock, isFatal: never });
    const secondSettled = expect(second).rejects.toThrow('refused 2');
    await clock.advance(100);
    await secondSettled;
    // The counter carries over: a loop started on a spent backoff fails at once.
    await expect(reconnectLoop(spent, async () => 'ok', { signal: new AbortController().signal, clock, isFatal: never })).rejects.toThrow('no reconnect attempt left (retries 2)');
  });
});
