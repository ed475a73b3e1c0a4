/**
 * The simulator's feed writes its frames with the protocol's writer: every update of a hot
 * channel it sends is read by the client's fast path, whatever the key order of the data the
 * engine published.
 */
import { fastDecodeServerFrame, scanHotUpdate } from '../../../src/protocol';
import { BOOK0, startFeed, type FeedHarness } from './feedHarness';

describe('FeedServer: hot update frames', () => {
  let h: FeedHarness;
  beforeEach(async () => {
    h = await startFeed();
  });
  afterEach(() => h.close());

  it('sends book, bbo and trades updates in the form the fast decoder reads', async () => {
    const c = await h.connect();
    const texts: string[] = [];
    c.ws.on('message', (data) => texts.push(data.toString()));
    for (const channel of ['book', 'bbo', 'trades'] as const) await c.subscribe(channel, BOOK0);
    // Keys in another order than the schemas': the text follows the protocol's order anyway.
    const level = { size_base_lots: '18446744073709551615', price_ticks: '7' };
    h.hub.publish('book', BOOK0, { asks: [level], bids: [] });
    h.hub.publish('bbo', BOOK0, { ask: null, bid: level });
    h.hub.publish('trades', BOOK0, { trades: [{ taker_is_bid: true, quote_notional_lots: '5', size_base_lots: '4', price_ticks: '3', sequence: '2', timestamp_ns: '1' }] });
    await c.waitForCount((f) => f.type === 'update', 3);
    await c.roundTrip();

    const updates = texts.filter((t) => t.startsWith('{"type":"update"'));
    expect(updates).toHaveLength(3);
    for (const text of updates) {
      expect(scanHotUpdate(text)).toEqual(JSON.parse(text));
      expect(fastDecodeServerFrame(text, { strict: true })).toMatchObject({ ok: true, dataValidated: true });
    }
    expect(c.invalid).toEqual([]);
  });
});
