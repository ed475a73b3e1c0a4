import { ClientClosedError } from '../../src/errors';
import { DEFAULT_RESYNC_RETRY, ResyncScheduler, type ReleaseSlot } from '../../src/replicas/ResyncScheduler';

describe('ResyncScheduler: the shared bound on snapshot attempts in flight', () => {
  it('300 attempts run with at most `concurrency` holding a slot, first come first served', async () => {
    const scheduler = new ResyncScheduler({ concurrency: 4 });
    const signal = new AbortController().signal;
    let inFlight = 0;
    let maxInFlight = 0;
    const started: number[] = [];
    await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const release = (await scheduler.acquire(signal))!;
        started.push(i);
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        expect(scheduler.inFlight).toBeLessThanOrEqual(4);
        await new Promise((r) => setImmediate(r));
        inFlight--;
        release();
        release(); // idempotent
      }),
    );
    expect(maxInFlight).toBe(4);
    expect(started).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(scheduler.inFlight).toBe(0);
    expect(scheduler.queued).toBe(0);
  });

  it('tryAcquire gives a free slot at once, and none when all are taken', () => {
    const scheduler = new ResyncScheduler({ concurrency: 2 });
    const a = scheduler.tryAcquire()!;
    expect(scheduler.tryAcquire()).toBeInstanceOf(Function);
    expect(scheduler.tryAcquire()).toBeUndefined();
    a();
    expect(scheduler.tryAcquire()).toBeInstanceOf(Function);
    scheduler.close();
    expect(scheduler.tryAcquire()).toBeUndefined();
  });

  it('an attempt cancelled while waiting gets no slot and takes none', async () => {
    const scheduler = new ResyncScheduler({ concurrency: 1 });
    const first = (await scheduler.acquire(new AbortController().signal))!;
    const controller = new AbortController();
    const waiting = scheduler.acquire(controller.signal);
    expect(scheduler.queued).toBe(1);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
    expect(scheduler.queued).toBe(0);
    await expect(scheduler.acquire(AbortSignal.abort())).resolves.toBeUndefined();
    first();
    const next: ReleaseSlot | undefined = await scheduler.acquire(new AbortController().signal);
    expect(next).toBeInstanceOf(Function);
    expect(scheduler.inFlight).toBe(1);
  });

  it('after close(), waiting attempts get no slot and later ones are refused', async () => {
    const scheduler = new ResyncScheduler({ concurrency: 1 });
    await scheduler.acquire(new AbortController().signal);
    const waiting = scheduler.acquire(new AbortController().signal);
    scheduler.close();
    await expect(waiting).resolves.toBeUndefined();
    await expect(scheduler.acquire(new AbortController().signal)).rejects.toBeInstanceOf(ClientClosedError);
  });

  it('holds the retry policy of snapshot requests: the library backoff shape, checked', () => {
    expect(new ResyncScheduler().retry).toEqual(DEFAULT_RESYNC_RETRY);
    expect(DEFAULT_RESYNC_RETRY).toEqual({ initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5, retries: 3 });
    expect(new ResyncScheduler({ retry: { initialDelayMs: 5, maxDelayMs: 50, retries: 9 } }).retry).toEqual({ initialDelayMs: 5, maxDelayMs: 50, factor: 2, jitter: 0.5, retries: 9 });
    expect(() => new ResyncScheduler({ concurrency: 0 })).toThrow(/resync\.concurrency/);
    expect(() => new ResyncScheduler({ retry: { jitter: 2 } })).toThrow(/resync\.retry\.jitter/);
    expect(() => new ResyncScheduler({ retry: { initialDelayMs: 500, maxDelayMs: 5 } })).toThrow(/resync\.retry\.maxDelayMs/);
  });
});
