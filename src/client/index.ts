export { ExchangeClient } from './ExchangeClient';
export type { ClientEvents } from './ClientEvents';
export { resolveClientOptions, feedUrlFor, type ExchangeClientOptions, type ArbitrationOptions } from './clientOptions';
export type { LineStats } from './FeedLines';
export type { MarketParams, CandleParams, PerpCandleParams, PerpMarketParams, AccountParams } from './replicaParams';
export type { StreamMetricsSnapshot } from './StreamMetrics';
export { whenLive, type WhenLiveOptions } from './whenLive';
export { iterate, type IterateOptions } from './iterate';
