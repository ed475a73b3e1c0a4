/** The snapshot loader of one stream, on a manual clock: one request, one cancellation, one retry policy. */
import { RestApiError, RestTransportError } from '../../src/errors';
import { ResyncLimiter } from '../../src/replicas/ResyncLimiter';
import { ResyncScheduler, type ResyncSchedulerOptions } from '../../src/replicas/ResyncScheduler';
import { SnapshotBehindError } from '../../src/replicas/SnapshotError';
import { isPermanentSnapshotFailure, isResyncRetryable, SnapshotLoader } from '../../src/replicas/SnapshotLoader';
import { ManualClock } from '../helpers/ManualClock';

/** A loader whose attempts the test answers by hand. */
function setup(schedulerOptions: ResyncSchedulerOptions = { retry: { initialDelayMs: 100, maxDelayMs: 1000, factor: 2, jitter: 0, retries: 2 } }, burst = 5, refillMs = 1000) {
  const clock = new ManualClock();
  const scheduler = new ResyncScheduler(schedulerOptions);
  const attempts: Array<{ signal: AbortSignal; resolve: (v: string) => void; reject: (e: unknown) => void; at: number }> = [];
  const results: string[] = [];
  const failures: unknown[] = [];
  const loader = new SnapshotLoader<string>(
    {
      attempt: (signal) =>
        new Promise<string>((resolve, reject) => {
          attempts.push({ signal, resolve, reject, at: clock.nowMs() });
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        }),
      onResult: (r) => results.push(r),
      onFailure: (e) => failures.push(e),
    },
    scheduler,
    new ResyncLimiter(burst, refillMs, clock),
    clock,
  );
  return { clock, scheduler, loader, attempts, results, failures };
}

describe('SnapshotLoader', () => {
  it('retries a retryable failure with the backoff of the scheduler, then delivers the result', async () => {
    const t = setup();
    t.loader.start();
    await t.clock.advance(0);
    t.attempts[0]!.reject(new RestTransportError('reset', {}));
    await t.clock.advance(99);
    expect(t.attempts).toHaveLength(1);
    await t.clock.advance(1);
    expect(t.attempts).toHaveLength(2);
    t.attempts[1]!.reject(new SnapshotBehindError(1n, 5n));
    await t.clock.advance(200);
    expect(t.attempts.map((a) => a.at)).toEqual([0, 100, 300]);
    t.attempts[2]!.resolve('snap');
    await t.clock.advance(0);
    expect(t.results).toEqual(['snap']);
    expect(t.failures).toEqual([]);
  });

  it('gives the last failure once the retries are spent, and a non-retryable one at once', async () => {
    const t = setup();
    t.loader.start();
    for (let i = 0; i < 3; i++) {
      await t.clock.advance(1000);
      t.attempts[i]!.reject(new RestTransportError(`down ${i}`, {}));
    }
    await t.clock.advance(1000);
    expect(t.attempts).toHaveLength(3); // 1 attempt + 2 retries
    expect(t.failures).toMatchObject([{ message: 'down 2' }]);

    const notFound = new RestApiError('NOT_FOUND', 'no such market', { operation: 'bbo', status: 404 });
    t.loader.start();
    await t.clock.advance(0);
    t.attempts[3]!.reject(notFound);
    await t.clock.advance(0);
    expect(t.failures[1]).toBe(notFound);
    expect(t.attempts).toHaveLength(4);
  });

  it('cancel() aborts the attempt in flight and drops its outcome; a backoff or a delay is cancelled too', async () => {
    const t = setup();
    t.loader.start();
    await t.clock.advance(0);
    t.loader.cancel();
    expect(t.attempts[0]!.signal.aborted).toBe(true);
    t.attempts[0]!.resolve('late');
    await t.clock.advance(0);
    expect(t.results).toEqual([]);

    t.loader.start(500);
    await t.clock.advance(499);
    expect(t.attempts).toHaveLength(1);
    t.loader.cancel();
    expect(t.clock.pendingTimers).toBe(0);
    await t.clock.advance(10_000);
    expect(t.attempts).toHaveLength(1);
    expect(t.failures).toEqual([]);
  });

  it('start() replaces the request on its way', async () => {
    const t = setup();
    t.loader.start();
    await t.clock.advance(0);
    t.loader.start();
    await t.clock.advance(0);
    expect(t.attempts[0]!.signal.aborted).toBe(true);
    t.attempts[1]!.resolve('second');
    await t.clock.advance(0);
    expect(t.results).toEqual(['second']);
  });

  it('holds a slot of the shared scheduler per attempt only, not during the backoff', async () => {
    const t = setup({ concurrency: 1, retry: { initialDelayMs: 100, maxDelayMs: 100, jitter: 0, retries: 1 } });
    t.loader.start();
    await t.clock.advance(0);
    expect(t.scheduler.inFlight).toBe(1);
    t.attempts[0]!.reject(new RestTransportError('reset', {}));
    await t.clock.advance(50);
    expect(t.scheduler.inFlight).toBe(0);
    await t.clock.advance(50);
    expect(t.scheduler.inFlight).toBe(1);
  });

  it('takes one request of the stream budget per start, not per retry, and waits for it', async () => {
    const t = setup(undefined, 1, 1000);
    t.loader.start();
    await t.clock.advance(0);
    t.attempts[0]!.resolve('a');
    await t.clock.advance(0);
    t.loader.start(); // the budget is spent
    await t.clock.advance(999);
    expect(t.attempts).toHaveLength(1);
    await t.clock.advance(1);
    expect(t.attempts).toHaveLength(2);
  });

  it('classifies failures', () => {
    expect(isResyncRetryable(new RestTransportError('x', {}))).toBe(true);
    expect(isResyncRetryable(new SnapshotBehindError(1n, 3n))).toBe(true);
    expect(isResyncRetryable(new RestApiError('NOT_FOUND', 'x', { operation: 'bbo', status: 404 }))).toBe(false);
    expect(isPermanentSnapshotFailure(new RestApiError('NOT_FOUND', 'x', { operation: 'bbo', status: 404 }))).toBe(true);
    expect(isPermanentSnapshotFailure(new RestApiError('RATE', 'x', { operation: 'bbo', status: 429 }))).toBe(false);
  });
});
