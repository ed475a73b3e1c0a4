import { OrderBook, bookReducer } from '../../../src/replicas/book';
import { ReplicaIntegrityError } from '../../../src/replicas/ReplicaIntegrityError';
import { L, askLadder, bidLadder } from './bookTestUtil';

const scope = { market_id: 0, is_perps: true };

describe('bookReducer', () => {
  it('is the reducer of channel book', () => {
    expect(bookReducer.channel).toBe('book');
  });

  it('builds a book whose depth limit is the 500 levels the channels table requests', () => {
    const full = bookReducer.fromSnapshot({ bids: bidLadder(1000, 500), asks: askLadder(1001, 499) }, scope);
    expect(full).toBeInstanceOf(OrderBook);
    expect(full.options.depthLimit).toBe(500);
    expect(full.bids.isTruncated).toBe(true);
    expect(full.asks.isTruncated).toBe(false);
  });

  it('applies updates in place: the same live object, a new version', () => {
    const book = bookReducer.fromSnapshot({ bids: [L(10, 1)], asks: [L(12, 1)] }, scope);
    const next = bookReducer.apply(book, { bids: [L(11, 2)], asks: [L(12, 0), L(13, 5)] }, 7n);
    expect(next).toBe(book);
    expect(book.version).toBe(1);
    expect(book.toSnapshot()).toEqual({ bids: [L(11, 2), L(10, 1)], asks: [L(13, 5)] });
  });

  it('a resync builds a new book and leaves the old one as it was', () => {
    const old = bookReducer.fromSnapshot({ bids: [L(10, 1)], asks: [L(12, 1)] }, scope);
    const fresh = bookReducer.fromSnapshot({ bids: [L(9, 3)], asks: [L(11, 4)] }, scope);
    expect(fresh).not.toBe(old);
    bookReducer.apply(fresh, { bids: [L(10, 1)], asks: [] }, 2n);
    expect(old.toSnapshot()).toEqual({ bids: [L(10, 1)], asks: [L(12, 1)] });
    expect(old.version).toBe(0);
  });

  it('throws ReplicaIntegrityError on a crossed update so the caller resyncs', () => {
    const book = bookReducer.fromSnapshot({ bids: [L(10, 1)], asks: [L(12, 1)] }, scope);
    expect(() => bookReducer.apply(book, { bids: [L(12, 1)], asks: [] }, 2n)).toThrow(ReplicaIntegrityError);
  });
});
