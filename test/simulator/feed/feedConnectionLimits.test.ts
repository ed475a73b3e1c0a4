import type { Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ManualClock } from '../../helpers/ManualClock';
import { BOOK0, startFeed, type FeedHarness } from './feedHarness';

describe('FeedServer: connection-level rules', () => {
  let h: FeedHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  // The server's clock is a manual one: time is the subject here, and a loaded machine must not
  // decide whether a client that pings every 50 ms outlives a 300 ms timeout.
  it('closes a silent client with HEARTBEAT_TIMEOUT (error frame, then close) and keeps a pinging one', async () => {
    const clock = new ManualClock();
    h = await startFeed({ heartbeatTimeoutMs: 300, clock });
    const silent = await h.connect();
    const chatty = await h.connect();
    for (let i = 0; i < 10; i++) {
      // The server has read the ping (its pong came back) before the clock moves on.
      await chatty.roundTrip(`keepalive-${i}`);
      await clock.advance(50);
    }
    const closed = await silent.closed;
    expect(closed.code).toBe(1000);
    const last = silent.frames.at(-1)!;
    expect(last).toEqual({ type: 'error', request_id: '', subscription_id: null, code: 'HEARTBEAT_TIMEOUT', error: expect.stringContaining('300') });
    expect(silent.invalid).toEqual([]);
    // The pinging client outlived the silent one's whole timeout and is still served.
    await chatty.subscribe('book', BOOK0);
    expect(chatty.frames.filter((f) => f.code === 'HEARTBEAT_TIMEOUT')).toEqual([]);
  });

  it('counts any client frame, even an invalid one, as a sign of life', async () => {
    const clock = new ManualClock();
    h = await startFeed({ heartbeatTimeoutMs: 300, clock });
    const c = await h.connect();
    const silent = await h.connect();
    const invalid = () => c.frames.filter((f) => f.code === 'INVALID_MESSAGE').length;
    for (let i = 1; i <= 10; i++) {
      c.send('garbage');
      // Read by the server once it answered it (INVALID_MESSAGE): no ping, the garbage alone keeps c alive.
      await c.waitFor(() => invalid() === i);
      await clock.advance(50);
    }
    await silent.closed;
    expect(c.frames.filter((f) => f.code === 'HEARTBEAT_TIMEOUT')).toEqual([]);
    // Still served.
    await c.roundTrip();
  });

  it('answers every connection with FEED_UNAVAILABLE and close code 1000 when the feed is off', async () => {
    h = await startFeed({ feedUnavailable: true });
    const c = await h.connect();
    const closed = await c.closed;
    expect(closed.code).toBe(1000);
    expect(c.frames).toEqual([{ type: 'error', request_id: '', subscription_id: null, code: 'FEED_UNAVAILABLE', error: expect.any(String) }]);
    expect(h.feed.connections()).toEqual([]);
  });

  it('drops the socket at once (no close frame) when a paused reader overflows its queue', async () => {
    h = await startFeed({ maxQueueBytes: 64 * 1024 });
    const slow = await h.connect();
    const fast = await h.connect();
    await slow.subscribe('book', BOOK0);
    await fast.subscribe('bbo', BOOK0);
    const raw = (slow.ws as unknown as { _socket: Socket })._socket;
    raw.pause();
    const big = { bids: Array.from({ length: 200 }, (_, i) => ({ price_ticks: String(1000 + i), size_base_lots: '123456789' })), asks: [] };
    // Kernel buffers absorb a few MB before the server's own buffer grows; publish until the server drops the socket.
    let published = 0;
    while (h.feed.connections().length === 2 && published < 20_000) {
      for (let i = 0; i < 50; i++, published++) h.hub.publish('book', BOOK0, big);
      await nextTurn();
    }
    expect(h.feed.connections().map((c) => c.id)).toHaveLength(1);
    expect(published).toBeLessThan(20_000);
    raw.resume();
    const closed = await slow.closed;
    expect(closed.code).toBe(1006);
    expect(slow.frames.filter((f) => f.type === 'error')).toEqual([]);
    // The other connection is untouched.
    h.hub.publish('bbo', BOOK0, { bid: null, ask: null });
    await fast.waitFor((f) => f.type === 'update' && f.channel === 'bbo');
  });
});
