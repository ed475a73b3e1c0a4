/**
 * The exchange as a replica source: the router's stream of a channel and scope (feed
 * connection, decode, subscribe/resubscribe) and a stream's whole snapshot from the REST
 * client (paging inside: `loadExchangeSnapshot`), one attempt per page (the replica's
 * snapshot loader retries the whole snapshot with `resync.retry`: a second, inner retry
 * layer would multiply the attempts).
 */
import type { ChannelName, Scope } from '../protocol';
import type { LoadedSnapshot, ReplicaSource, SnapshotFetcher, SnapshotQuery, SourceSink } from '../replicas';
import type { RestClient } from '../rest';
import type { SubscriptionRouter } from '../router';
import { loadExchangeSnapshot } from './exchangeSnapshot';

const SINGLE_ATTEMPT = Object.freeze({ retries: 0 });

/**
 * @example
 * const source = new ExchangeSource(router, rest);
 * const sync = new StreamSync({ channel: 'bbo', scope, reducer, source, scheduler }).start();
 */
export class ExchangeSource implements ReplicaSource {
  private readonly fetch: SnapshotFetcher;

  constructor(
    private readonly router: Pick<SubscriptionRouter, 'listen'>,
    rest: Pick<RestClient, 'call'>,
  ) {
    this.fetch = (operation, params, signal) => rest.call(operation, params, { signal, retry: SINGLE_ATTEMPT });
  }

  subscribe(channel: ChannelName, scope: Scope, sink: SourceSink): () => void {
    return this.router.listen(channel, scope, sink);
  }

  snapshot(query: SnapshotQuery): Promise<LoadedSnapshot> {
    return loadExchangeSnapshot(query, this.fetch);
  }
}
