/**
 * The exchange as a replica source: the router's stream of a channel and scope (feed
 * connection, decode, subscribe/resubscribe) and snapshots from the REST client, one attempt
 * per call (the replica's snapshot loader retries the whole snapshot with `resync.retry`: a
 * second, inner retry layer would multiply the attempts).
 */
import type { Observable } from 'rxjs';
import type { ChannelName, ParamValues, Scope, SnapshotOperationName } from '../protocol';
import type { ReplicaSource, SnapshotPage, SourceEvent, SourceListener } from '../replicas';
import type { RestClient } from '../rest';
import type { SubscriptionRouter } from '../router';

const SINGLE_ATTEMPT = Object.freeze({ retries: 0 });

/**
 * @example
 * const source = new ExchangeSource(router, rest);
 * const sync = new StreamSync({ channel: 'bbo', scope, reducer, source, scheduler }).start();
 */
export class ExchangeSource implements ReplicaSource {
  constructor(
    private readonly router: Pick<SubscriptionRouter, 'stream' | 'listen'>,
    private readonly rest: Pick<RestClient, 'call'>,
  ) {}

  events(channel: ChannelName, scope: Scope): Observable<SourceEvent> {
    return this.router.stream(channel, scope);
  }

  listen(channel: ChannelName, scope: Scope, listener: SourceListener): () => void {
    return this.router.listen(channel, scope, listener);
  }

  snapshot(operation: SnapshotOperationName, params: ParamValues, signal: AbortSignal): Promise<SnapshotPage> {
    return this.rest.call(operation, params, { signal, retry: SINGLE_ATTEMPT });
  }
}
