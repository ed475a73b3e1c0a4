/** The order book replica and the `book` channel reducer. */
export { OrderBook, type OrderBookOptions, type BookLevels } from './OrderBook';
export { type BookSideReader, type LevelCallback, type BigLevelCallback } from './BookSide';
export { BookPrecisionError } from './BookPrecisionError';
export { bookReducer, type BookData } from './bookReducer';
