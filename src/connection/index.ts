/** The feed connection: state machine, keep-alive and reconnect policy. */
export { Connection, type CloseInfo, type ConnectionEvents, type OpenInfo } from './Connection';
export { resolveConnectionOptions, SOCKET_OPEN, type ConnectionOptions, type RawSocketData, type ResolvedConnectionOptions, type WebSocketConstructor, type WsWebSocketConstructor, type StandardWebSocketConstructor, type WebSocketLike, type StandardWebSocketLike, type WebSocketClientOptions } from './connectionOptions';
export { ConnectionState, type ConnectionStateName, type StateChange, type StateChangeSink } from './ConnectionState';
export { IllegalStateTransitionError } from './IllegalStateTransitionError';
export { KeepAlive, type KeepAliveOptions } from './KeepAlive';
export { RECONNECT_DEFAULTS, reconnectLoop, resolveReconnectPolicy, type ReconnectPolicyOptions, type ResolvedReconnectPolicyOptions } from './reconnectPolicy';
