import { AbortedError, ClientClosedError, RestApiError, RestTransportError } from '../../src/errors';
import { ResyncScheduler } from '../../src/replicas/resyncScheduler';

const fastRetry = { retries: 3, minDelayMs: 1, maxDelayMs: 2, factor: 1, jitter: false };

/** A job the test finishes by hand. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('ResyncScheduler', () => {
  it('runs 300 jobs with at most `concurrency` in flight', async () => {
    const scheduler = new ResyncScheduler({ concurrency: 4, retry: fastRetry });
    let inFlight = 0;
    let maxInFlight = 0;
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        scheduler.schedule(`stream-${i}`, async () => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          expect(scheduler.inFlight).toBeLessThanOrEqual(4);
          await new Promise((r) => setImmediate(r));
          inFlight--;
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(maxInFlight).toBe(4);
    expect(scheduler.inFlight).toBe(0);
    expect(scheduler.queued).toBe(0);
  });

  it('joins a second request of the same key while it is queued or running', async () => {
    const scheduler = new ResyncScheduler({ concurrency: 1 });
    const blocker = deferred<string>();
    const b = scheduler.schedule('blocker', () => blocker.promise);
    let runs = 0;
    const job = async () => {
      runs++;
      return 'snap';
    };
    const first = scheduler.schedule('k', job);
    const second = scheduler.schedule('k', job); // joins while queued
    expect(scheduler.queued).toBe(1);
    blocker.resolve('done');
    const running = deferred<string>();
    const third = scheduler.schedule('k2', () => running.promise);
    await expect(Promise.all([first, second, b])).resolves.toEqual(['snap', 'snap', 'done']);
    expect(runs).toBe(1);
    const fourth = scheduler.schedule('k2', () => Promise.resolve('other')); // joins while running
    running.resolve('from-running');
    await expect(Promise.all([third, fourth])).resolves.toEqual(['from-running', 'from-running']);
  });

  it('retries retryable failures with backoff and gives up on the others', async () => {
    const retries: number[] = [];
    const scheduler = new ResyncScheduler({ retry: fastRetry, onRetry: (_k, info) => retries.push(info.attempt) });
    let attempts = 0;
    const value = await scheduler.schedule('k', async (_signal, attempt) => {
      attempts++;
      if (attempt < 3) throw new RestTransportError('connection reset', {});
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(attempts).toBe(3);
    expect(retries).toEqual([1, 2]);

    let notFoundAttempts = 0;
    const notFound = new RestApiError('NOT_FOUND', 'no such market', { operation: 'bbo', status: 404 });
    await expect(
      scheduler.schedule('k404', async () => {
        notFoundAttempts++;
        throw notFound;
      }),
    ).rejects.toBe(notFound);
    expect(notFoundAttempts).toBe(1);
  });

  it('rejects with the last failure when retries run out', async () => {
    const scheduler = new ResyncScheduler({ retry: { ...fastRetry, retries: 2 } });
    let attempts = 0;
    await expect(
      scheduler.schedule('k', async () => {
        attempts++;
        throw new RestTransportError(`down ${attempts}`, {});
      }),
    ).rejects.toThrow('down 3');
  });

  it('cancels a queued job without running it', async () => {
    const scheduler = new ResyncScheduler({ concurrency: 1 });
    const blocker = deferred<void>();
    void scheduler.schedule('blocker', () => blocker.promise);
    const controller = new AbortController();
    let ran = false;
    const p = scheduler.schedule('k', async () => {
      ran = true;
    }, controller.signal);
    controller.abort();
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    expect(scheduler.queued).toBe(0);
    blocker.resolve();
    await scheduler.schedule('after', async () => undefined);
    expect(ran).toBe(false);
  });

  it('aborts a running job only when every requester detached', async () => {
    const scheduler = new ResyncScheduler();
    let jobSignal!: AbortSignal;
    const started = deferred<void>();
    const job = (signal: AbortSignal) =>
      new Promise<string>((resolve, reject) => {
        jobSignal = signal;
        started.resolve();
        signal.addEventListener('abort', () => reject(signal.reason));
        setImmediate(() => (signal.aborted ? undefined : resolve('late')));
      });
    const a = new AbortController();
    const b = new AbortController();
    const pa = scheduler.schedule('k', job, a.signal);
    const pb = scheduler.schedule('k', job, b.signal);
    await started.promise;
    a.abort();
    await expect(pa).rejects.toBeInstanceOf(AbortedError);
    expect(jobSignal.aborted).toBe(false);
    await expect(pb).resolves.toBe('late');

    const c = new AbortController();
    const started2 = deferred<void>();
    const pc = scheduler.schedule('k', (signal) => {
      jobSignal = signal;
      started2.resolve();
      return new Promise<string>((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    }, c.signal);
    await started2.promise;
    c.abort();
    await expect(pc).rejects.toBeInstanceOf(AbortedError);
    expect(jobSignal.aborted).toBe(true);
    // The key is free again at once: a new request starts a new job.
    await expect(scheduler.schedule('k', async () => 'fresh')).resolves.toBe('fresh');
  });

  it('rejects an already aborted request and everything after close()', async () => {
    const scheduler = new ResyncScheduler();
    await expect(scheduler.schedule('k', async () => 1, AbortSignal.abort())).rejects.toBeInstanceOf(AbortedError);
    const pending = scheduler.schedule('k', (signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    scheduler.close();
    await expect(pending).rejects.toBeInstanceOf(ClientClosedError);
    await expect(scheduler.schedule('k', async () => 1)).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('checks its options', () => {
    expect(() => new ResyncScheduler({ concurrency: 0 })).toThrow(/concurrency/);
  });
});
