/** The order book replica and the `book` channel reducer. */
export { OrderBook, type OrderBookOptions, type BookLevels } from './OrderBook';
export { type BookSideReader, type BookTopView, type LevelCallback, type BigLevelCallback } from './BookSideReader';
export { BookPrecisionError } from './BookPrecisionError';
export { BookDecimals, type DecimalLevel } from './BookDecimals';
export { bookReducer, type BookData } from './bookReducer';
