/** `marketStats`: whole replacement; the snapshot is a list from which the scope's market is picked. */
import { scopeMarketType, type MarketStats } from '../../protocol';
import { ReplicaIntegrityError, type Reducer } from '../Reducer';

/**
 * Reducer of `marketStats`: state = the latest `MarketStats` of the scope's market.
 * @throws ReplicaIntegrityError from `fromSnapshot` when the snapshot lacks that market.
 */
export const marketStatsReducer: Reducer<MarketStats, MarketStats, readonly MarketStats[]> = {
  channel: 'marketStats',
  fromSnapshot(snapshot, scope) {
    const marketType = scopeMarketType('marketStats', scope);
    const found = snapshot.find((s) => s.market_id === scope.market_id && s.market_type === marketType);
    if (!found) throw new ReplicaIntegrityError(`the marketStats snapshot has no entry for ${marketType} market ${String(scope.market_id)}`);
    return found;
  },
  apply(_state, data) {
    return data;
  },
};
