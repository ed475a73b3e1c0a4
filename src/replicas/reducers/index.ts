/** The reducer of each channel kind except `book` (see src/replicas/book/) and `events` (see src/replicas/eventReducer.ts). */
export { createReplaceReducer } from './replaceReducer';
export { createCandleReducer, upsertCandle, candlesFromSnapshot, DEFAULT_MAX_CANDLES, type CandleReducerOptions } from './candleReducer';
export { createUpsertReducer, upsertAll, type UpsertSpec } from './upsertReducer';
export { createKeyedSet, isKeyedSet, loadKeyedSet, updateKeyedSet, type KeyedSet, type KeyChange } from './KeyedSet';
