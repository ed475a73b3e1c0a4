/** The subscription router: refcounted streams over one feed connection, as RouterEvent observables. */
export { SubscriptionRouter, type RouterConnection } from './SubscriptionRouter';
export { resolveRouterOptions, type DriftContext, type FrameDecoder, type RouterDecodeResult, type ResolvedRouterOptions, type RouterOptions } from './routerOptions';
export type { DisconnectedEvent, ResyncRequiredEvent, RouterEvent, SubscribedEvent, UpdateEvent } from './RouterEvent';
export { checkSubscription, type SubscriptionCheck } from './checkSubscription';
export { PendingRequests } from './PendingRequests';
export { StreamEntry, type StreamPhase } from './StreamEntry';
export type { StreamListener } from './StreamListener';
export { SubscriptionRegistry } from './SubscriptionRegistry';
