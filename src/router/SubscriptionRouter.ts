/**
 * The subscription router: turns `stream(channel, scope)` calls into server subscriptions
 * on the connection (one per distinct stream, shared and reference counted), matches
 * requests to answers, re-subscribes every live stream after a reconnect and fans frames
 * out to the subscribers of their stream as `RouterEvent`s. It is the one reader of the
 * connection's frames: the error frames after which the server closes are decoded here, and
 * the connection is told what to do by a command (`fail`, `reconnect`, `expectClose`).
 */
import { filter, Observable, Subject } from 'rxjs';
import type { Connection } from '../connection/Connection';
import { ClientClosedError, ConnectionFailedError, FeedError, FrameError, RequestTimeoutError, type ExchangeReplicaError } from '../errors';
import { messageOf } from '../errors/messageOf';
import {
  CHANNELS,
  frameSubscriptionId,
  streamKey,
  summarizeZodError,
  validateWithDrift,
  type ChannelName,
  type DriftReport,
  type ErrorFrame,
  type ResyncRequiredFrame,
  type Scope,
  type SubscribedFrame,
  type SubscribeFrame,
  type UnsubscribedFrame,
  type UpdateFrame,
  type ValidateOptions,
} from '../protocol';
import { uint64FromDigits } from '../protocol/scalars';
import { checkSubscription } from './checkSubscription';
import { closeOnErrorFrame, closesSocket } from './closeOnErrorFrame';
import { dispatch, endAll } from './deliver';
import { IdleCloser } from './IdleCloser';
import { PendingRequests } from './PendingRequests';
import { resolveRouterOptions, type ResolvedRouterOptions, type RouterOptions } from './routerOptions';
import type { RouterEvent, UpdateEvent } from './RouterEvent';
import type { StreamEntry } from './StreamEntry';
import type { StreamListener } from './StreamListener';
import { SubscriptionRegistry } from './SubscriptionRegistry';

/** What the router needs of a connection (a `Connection` has it all). */
export type RouterConnection = Pick<Connection, 'connect' | 'disconnect' | 'send' | 'nextRequestId' | 'state' | 'generation' | 'failureError' | 'url' | 'fail' | 'reconnect' | 'expectClose' | 'on' | 'off'>;

type PendingRequest = { readonly kind: 'subscribe'; readonly entry: StreamEntry } | { readonly kind: 'unsubscribe'; readonly subscriptionId: string };

const FRAME_EXCERPT = 200;

/**
 * @example
 * const router = new SubscriptionRouter(connection);
 * const sub = router.stream('book', { market_id: 0, is_perps: true }).subscribe((e) => {
 *   if (e.kind === 'update') console.log(e.seq, e.data);
 * });
 * sub.unsubscribe(); // the last subscriber of a stream unsubscribes it on the server
 */
export class SubscriptionRouter {
  /** Problems that concern no single subscriber: undecodable frames, unknown ids, invalid updates, failed unsubscribes. */
  readonly errors: Observable<ExchangeReplicaError>;
  private readonly options: ResolvedRouterOptions;
  private readonly errorSubject = new Subject<ExchangeReplicaError>();
  private readonly registry = new SubscriptionRegistry();
  private readonly pending: PendingRequests<PendingRequest>;
  /** Options of frame decoding: drift reports carry no stream context. */
  private readonly validateOptions: ValidateOptions;
  /** The current socket delivered a frame other than a closing error: its feed was serving. */
  private serving = false;
  private closed = false;
  /** Armed while no stream has a subscriber: closes the idle connection (`idleCloseMs`). */
  private readonly idleCloser: IdleCloser;

  /** @throws InvalidParameterError on an option that cannot work. */
  constructor(
    private readonly connection: RouterConnection,
    options: RouterOptions = {},
  ) {
    this.options = resolveRouterOptions(options);
    this.errors = this.errorSubject.asObservable();
    this.pending = new PendingRequests(this.options.requestTimeoutMs, this.onRequestTimeout, this.options.clock);
    this.idleCloser = new IdleCloser(this.options.idleCloseMs, this.options.clock, () => !this.closed && !this.hasSubscribers(), (reason) => connection.disconnect(reason));
    const onDrift = this.options.onDrift;
    this.validateOptions = { strict: this.options.strict, onDrift: onDrift && ((report: DriftReport) => onDrift(report, {})) };
    connection.on('open', this.onOpen);
    connection.on('message', this.onMessage);
    connection.on('close', this.onClose);
    connection.on('state', this.onState);
  }

  /**
   * The events of one stream. Subscribing connects lazily and subscribes on the server
   * unless the stream is already subscribed (then `subscribed` is replayed to the newcomer).
   * Errors with `InvalidParameterError` for a bad channel or scope (nothing sent), a
   * `FeedError` with the server's code when the server refuses it, `RequestTimeoutError`
   * when it does not answer, or the connection's failure.
   */
  stream(channel: ChannelName, scope: Scope): Observable<RouterEvent> {
    return new Observable<RouterEvent>((subscriber) => this.listen(channel, scope, subscriber));
  }

  /**
   * `stream` without RxJS: `listener` is called in place for every event of the stream, in
   * the same order and with the same errors (after `error` or `complete` it is dropped).
   * Returns the unsubscribe; calling it again does nothing.
   */
  listen(channel: ChannelName, scope: Scope, listener: StreamListener): () => void {
    const refused = this.refusal();
    if (refused) return fail(listener, refused);
    const checked = checkSubscription(channel, scope as Record<string, unknown>);
    if (!checked.ok) return fail(listener, checked.error);
    const entry = this.registry.acquire(streamKey(checked.channel, checked.scope), checked.channel, checked.scope);
    entry.observers.add(listener);
    this.idleCloser.cancel();
    if (entry.phase === 'active') {
      listener.next({ kind: 'subscribed', subscriptionId: entry.subscriptionId!, generation: entry.generation });
    } else if (entry.phase === 'idle') {
      this.connection.connect();
      if (this.connection.state === 'open') this.subscribe(entry);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(entry, listener);
    };
  }

  /** The `update` events of one stream only. */
  raw(channel: ChannelName, scope: Scope): Observable<UpdateEvent> {
    return this.stream(channel, scope).pipe(filter((e): e is UpdateEvent => e.kind === 'update'));
  }

  /** Server subscriptions this router holds on the current connection. */
  activeServerSubscriptions(): number {
    return this.registry.activeCount;
  }

  /** Subscribe and unsubscribe requests awaiting an answer. */
  pendingRequests(): number {
    return this.pending.size;
  }

  /**
   * Unsubscribes every stream on the server (when the socket is open), completes every
   * subscriber and detaches from the connection. The connection itself stays with its owner.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.idleCloser.cancel();
    this.connection.off('open', this.onOpen);
    this.connection.off('message', this.onMessage);
    this.connection.off('close', this.onClose);
    this.connection.off('state', this.onState);
    this.pending.clear();
    const entries = this.registry.clear();
    for (const entry of entries) {
      if (entry.phase === 'active') this.connection.send({ type: 'unsubscribe', request_id: this.connection.nextRequestId(), subscription_id: entry.subscriptionId! });
    }
    for (const entry of entries) endAll(entry, undefined, this.report);
    this.errorSubject.complete();
  }

  // ---- requests --------------------------------------------------------------

  private subscribe(entry: StreamEntry): void {
    const requestId = this.connection.nextRequestId();
    const frame: SubscribeFrame = { type: 'subscribe', request_id: requestId, channel: entry.channel, ...entry.scope };
    // Not open: the next `open` subscribes every idle stream.
    if (!this.connection.send(frame)) return;
    entry.phase = 'subscribing';
    this.pending.add(requestId, { kind: 'subscribe', entry });
  }

  private unsubscribe(subscriptionId: string): void {
    this.registry.retire(subscriptionId);
    const requestId = this.connection.nextRequestId();
    // Not open: the socket is gone, and the server's subscription with it.
    if (this.connection.send({ type: 'unsubscribe', request_id: requestId, subscription_id: subscriptionId })) {
      this.pending.add(requestId, { kind: 'unsubscribe', subscriptionId });
    }
  }

  /** One subscriber left; the last one of a stream takes the server subscription down. */
  private release(entry: StreamEntry, listener: StreamListener): void {
    entry.observers.delete(listener);
    this.idleCloser.arm();
    if (entry.observers.size > 0 || !this.registry.isCurrent(entry)) return;
    // In flight: the entry stays, so a quick re-subscribe joins it; an ack nobody wants is undone on arrival.
    if (entry.phase === 'subscribing') return;
    const id = entry.phase === 'active' ? entry.subscriptionId : undefined;
    this.registry.forget(entry);
    if (id !== undefined) this.unsubscribe(id);
  }

  private hasSubscribers(): boolean {
    for (const entry of this.registry.entries()) if (entry.observers.size > 0) return true;
    return false;
  }

  private readonly onRequestTimeout = (requestId: string, request: PendingRequest): void => {
    if (request.kind === 'unsubscribe') {
      this.report(new RequestTimeoutError(`unsubscribe of subscription ${request.subscriptionId} got no answer within ${this.options.requestTimeoutMs} ms`, { subscriptionId: request.subscriptionId }));
      return;
    }
    const { entry } = request;
    this.registry.abandon(requestId);
    this.registry.forget(entry);
    this.errorAll(entry, new RequestTimeoutError(`subscribe to ${entry.key} got no answer within ${this.options.requestTimeoutMs} ms`, { channel: entry.channel, stream: entry.key }));
  };

  // ---- connection events -----------------------------------------------------

  private readonly onOpen = (): void => {
    this.serving = false;
    for (const entry of this.registry.entries()) {
      if (entry.phase === 'idle' && entry.observers.size > 0) this.subscribe(entry);
    }
  };

  private readonly onClose = (info: { reason: string; willReconnect: boolean }): void => {
    // Answers to requests of the old socket will never come; its ids are void.
    this.pending.clear();
    this.registry.resetConnection();
    if (!info.willReconnect) return;
    const event: RouterEvent = { kind: 'disconnected', reason: info.reason };
    for (const entry of this.registry.entries()) this.dispatch(entry, event);
  };

  private readonly onState = (change: { to: string }): void => {
    if (change.to !== 'failed' && change.to !== 'closed') return;
    const error = this.refusal()!;
    this.pending.clear();
    for (const entry of this.registry.clear()) this.errorAll(entry, error);
  };

  /** Why a new stream cannot be served, if it cannot. */
  private refusal(): ExchangeReplicaError | undefined {
    if (this.closed) return new ClientClosedError('the subscription router is closed');
    if (this.connection.state === 'closed') return new ClientClosedError('the feed connection is closed');
    if (this.connection.state === 'failed') return this.connection.failureError ?? new ConnectionFailedError('the feed connection failed');
    return undefined;
  }

  // ---- frames ----------------------------------------------------------------

  private readonly onMessage = (text: string): void => {
    const receivedAtNs = this.options.clock.nowNs();
    const served = this.serving;
    this.serving = true;
    try {
      const decoded = this.options.decode(text, this.validateOptions);
      if (!decoded.ok) return this.undecodable(text, new FrameError(`${decoded.message} (frame: ${text.slice(0, FRAME_EXCERPT)})`));
      const frame = decoded.frame;
      switch (frame.type) {
        case 'update':
          return this.onUpdate(frame, decoded.dataValidated === true, receivedAtNs, text.length);
        case 'resync_required':
          return this.onResyncRequired(frame);
        case 'subscribed':
          return this.onSubscribed(frame);
        case 'unsubscribed':
          return this.onUnsubscribed(frame);
        case 'error':
          return this.onErrorFrame(frame, served);
        case 'pong':
          return; // liveness is the connection's business
        default:
          return this.report(new FrameError(`unknown frame type ${JSON.stringify((frame as { type: unknown }).type)} (frame: ${text.slice(0, FRAME_EXCERPT)})`));
      }
    } catch (cause) {
      // A bug or a throwing decoder must not take the connection down.
      this.undecodable(text, new FrameError(`frame could not be routed: ${messageOf(cause)} (frame: ${text.slice(0, FRAME_EXCERPT)})`, {}, { cause }));
    }
  };

  /**
   * A frame that could not be read: reported, and when it names a subscription of ours, that
   * stream resyncs (it may have been an update: the replica must not stay live one behind).
   */
  private undecodable(text: string, error: FrameError): void {
    const id = frameSubscriptionId(text);
    const entry = id === undefined ? undefined : this.registry.lookup(id);
    if (entry === undefined) return this.report(error);
    this.report(new FrameError(error.message, { channel: entry.channel, stream: entry.key, subscriptionId: id }, { cause: error.cause }));
    this.dispatch(entry, { kind: 'resync_required', reason: 'invalid_update' });
  }

  private onUpdate(frame: UpdateFrame, dataValidated: boolean, receivedAtNs: bigint, size: number): void {
    const entry = this.streamOf(frame.subscription_id, 'update');
    if (entry === undefined) return;
    if (frame.channel !== entry.channel) return this.invalidUpdate(entry, `update for subscription ${frame.subscription_id} names channel ${frame.channel}, expected ${entry.channel}`);
    let data = frame.data;
    if (!dataValidated) {
      const checked = validateWithDrift(CHANNELS[entry.channel].data, data, this.dataValidateOptions(entry));
      if (!checked.ok) return this.invalidUpdate(entry, `update seq ${frame.seq} of ${entry.key} does not match the channel's schema: ${summarizeZodError(checked.error)}`);
      data = checked.value;
    }
    this.dispatch(entry, { kind: 'update', seq: uint64FromDigits(frame.seq), timestampNs: BigInt(frame.timestamp_ns), receivedAtNs, data, size });
  }

  /** Validation options of an update's data: drift reports name the stream. */
  private dataValidateOptions(entry: StreamEntry): ValidateOptions {
    const onDrift = this.options.onDrift;
    if (onDrift === undefined) return this.validateOptions;
    const context = { channel: entry.channel, stream: entry.key };
    return { strict: this.options.strict, onDrift: (report) => onDrift(report, context) };
  }

  private invalidUpdate(entry: StreamEntry, message: string): void {
    this.report(new FrameError(message, { channel: entry.channel, stream: entry.key, subscriptionId: entry.subscriptionId }));
    this.dispatch(entry, { kind: 'resync_required', reason: 'invalid_update' });
  }

  private onResyncRequired(frame: ResyncRequiredFrame): void {
    const entry = this.streamOf(frame.subscription_id, 'resync_required');
    if (entry !== undefined) this.dispatch(entry, { kind: 'resync_required', reason: frame.reason });
  }

  /** The stream of a server id; reports ids that are neither current nor being unsubscribed. */
  private streamOf(subscriptionId: string, frameType: string): StreamEntry | undefined {
    const entry = this.registry.lookup(subscriptionId);
    if (entry === undefined && !this.registry.isRetired(subscriptionId)) {
      this.report(new FrameError(`${frameType} frame for unknown subscription id ${subscriptionId}`, { subscriptionId }));
    }
    return entry;
  }

  private onSubscribed(frame: SubscribedFrame): void {
    const request = this.pending.take(frame.request_id);
    if (request?.kind !== 'subscribe') {
      // A late ack of a request that timed out: nobody owns that subscription, undo it.
      if (request === undefined && this.registry.takeAbandoned(frame.request_id)) return this.unsubscribe(frame.subscription_id);
      return this.report(new FrameError(`subscribed frame answers no pending subscribe (request_id ${frame.request_id})`, { subscriptionId: frame.subscription_id }));
    }
    const { entry } = request;
    if (entry.observers.size === 0 || !this.registry.isCurrent(entry)) {
      this.registry.forget(entry);
      return this.unsubscribe(frame.subscription_id);
    }
    if (frame.channel !== entry.channel) {
      this.report(new FrameError(`subscribed frame names channel ${frame.channel}, expected ${entry.channel}`, { channel: entry.channel, stream: entry.key, subscriptionId: frame.subscription_id }));
    }
    this.registry.activate(entry, frame.subscription_id, this.connection.generation);
    this.dispatch(entry, { kind: 'subscribed', subscriptionId: frame.subscription_id, generation: entry.generation });
  }

  private onUnsubscribed(frame: UnsubscribedFrame): void {
    const request = this.pending.take(frame.request_id);
    if (request?.kind === 'unsubscribe') return this.registry.settleRetired(request.subscriptionId);
    this.report(new FrameError(`unsubscribed frame answers no pending unsubscribe (request_id ${frame.request_id})`, { subscriptionId: frame.subscription_id }));
  }

  private onErrorFrame(frame: ErrorFrame, served: boolean): void {
    if (closesSocket(frame)) {
      // The socket ends with this frame: whether it was serving is as it was before it.
      this.serving = served;
      return closeOnErrorFrame(this.connection, frame, served);
    }
    const request = frame.request_id === '' ? undefined : this.pending.take(frame.request_id);
    if (request?.kind === 'subscribe') {
      const { entry } = request;
      this.registry.forget(entry);
      this.errorAll(entry, new FeedError(frame.code, `subscription to ${entry.key} refused by the server: ${frame.error}`, { channel: entry.channel, stream: entry.key }));
      return;
    }
    if (request?.kind === 'unsubscribe') this.registry.settleRetired(request.subscriptionId);
    const subscriptionId = frame.subscription_id ?? (request?.kind === 'unsubscribe' ? request.subscriptionId : undefined);
    this.report(new FeedError(frame.code, `feed error: ${frame.error}`, subscriptionId === undefined ? {} : { subscriptionId }));
  }

  // ---- delivery --------------------------------------------------------------

  private dispatch(entry: StreamEntry, event: RouterEvent): void {
    dispatch(entry, event, this.report);
  }

  private errorAll(entry: StreamEntry, error: ExchangeReplicaError): void {
    endAll(entry, error, this.report);
    this.idleCloser.arm();
  }

  private readonly report = (error: ExchangeReplicaError): void => {
    this.errorSubject.next(error);
  };
}
/** Errors `listener` at once (nothing subscribed); its unsubscribe does nothing. */
function fail(listener: StreamListener, error: ExchangeReplicaError): () => void {
  listener.error(error);
  return noop;
}

function noop(): void {}

