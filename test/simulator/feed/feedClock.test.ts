/** The feed server reads time only through its `clock` option: frame timestamps and the heartbeat deadline. */
import { ManualClock } from '../../helpers/ManualClock';
import { BOOK0, startFeed, type FeedHarness } from './feedHarness';

let h: FeedHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it('stamps pongs and updates with clock.nowNs()', async () => {
  const clock = new ManualClock(0, 1_800_000_000_000_000_000n);
  h = await startFeed({ clock });
  const c = await h.connect();
  expect((await c.roundTrip('p-1')).timestamp_ns).toBe('1800000000000000000');
  await clock.advance(2.5);
  await c.subscribe('book', BOOK0);
  h.hub.publish('book', BOOK0, { bids: [], asks: [] });
  const [u] = await c.waitForCount((f) => f.type === 'update', 1);
  expect(u!.timestamp_ns).toBe('1800000000002500000');
  expect(c.invalid).toEqual([]);
});

it('closes a silent client with HEARTBEAT_TIMEOUT when the clock says so, not before', async () => {
  const clock = new ManualClock();
  h = await startFeed({ clock, heartbeatTimeoutMs: 60_000 });
  const c = await h.connect();
  await c.roundTrip('p-1');
  await clock.advance(59_999);
  await c.roundTrip('p-2');
  expect(c.frames.filter((f) => f.code === 'HEARTBEAT_TIMEOUT')).toEqual([]);
  // The ping at 59.999 s moved the deadline: silence from then on for 60 s.
  await clock.advance(59_999);
  expect(c.frames.filter((f) => f.code === 'HEARTBEAT_TIMEOUT')).toEqual([]);
  await clock.advance(1);
  const closing = await c.waitFor((f) => f.code === 'HEARTBEAT_TIMEOUT');
  expect(closing).toMatchObject({ type: 'error', error: expect.stringContaining('60000') });
});
