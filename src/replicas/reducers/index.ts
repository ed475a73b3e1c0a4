/** The reducers of every channel except `book` (see src/replicas/book/). */
export { bboReducer } from './bboReducer';
export { marketStatsReducer } from './marketStatsReducer';
export { createCandlesReducer, createMarkCandlesReducer, upsertCandle, candlesFromSnapshot, DEFAULT_MAX_CANDLES, type CandleReducerOptions } from './candleReducer';
export { accountReducer } from './accountReducer';
export { balancesReducer } from './balancesReducer';
export { positionsReducer } from './positionsReducer';
export { ordersReducer } from './ordersReducer';
export { createUpsertReducer, upsertAll, type UpsertSpec } from './upsertReducer';
export { createKeyedSet, isKeyedSet, loadKeyedSet, updateKeyedSet, type KeyedSet, type KeyChange } from './KeyedSet';
export { createTradesReducer } from './tradesReducer';
export { createFillsReducer } from './fillsReducer';
export { createFundingRatesReducer } from './fundingRatesReducer';
