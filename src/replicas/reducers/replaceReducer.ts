/**
 * The `replace` kind (`bbo`, `marketStats`, `account`): every update is the whole record,
 * which replaces the previous one. The snapshot answer holds the scope's record where the
 * channel's `replace` parameter says (see ReplacePick in src/protocol/channels.ts).
 */
import { scopeMarketType, type ChannelName, type ReplacePick, type Scope } from '../../protocol';
import type { Reducer } from '../Reducer';
import { ReplicaIntegrityError } from '../ReplicaIntegrityError';

interface MarketRecord {
  readonly market_id: number;
  readonly market_type: string;
}
interface SubaccountRecord {
  readonly subaccount_id: number;
}

/** The scope's record in a snapshot answer. */
function picker<T>(channel: ChannelName, pick: ReplacePick): (snapshot: unknown, scope: Scope) => T {
  switch (pick) {
    case 'answer':
      return (snapshot) => snapshot as T;
    case 'market':
      return (snapshot, scope) => {
        const marketType = scopeMarketType(channel, scope);
        const found = (snapshot as readonly MarketRecord[]).find((s) => s.market_id === scope.market_id && s.market_type === marketType);
        if (!found) throw new ReplicaIntegrityError(`the ${channel} snapshot has no entry for ${marketType} market ${String(scope.market_id)}`);
        return found as T;
      };
    case 'subaccount':
      return (snapshot, scope) => {
        const answer = snapshot as { readonly address: string; readonly subaccounts: readonly SubaccountRecord[] };
        const found = answer.subaccounts.find((s) => s.subaccount_id === scope.subaccount_id);
        if (!found) throw new ReplicaIntegrityError(`the ${channel} snapshot of ${answer.address} has no subaccount ${String(scope.subaccount_id)}`);
        return found as T;
      };
  }
}

/**
 * The reducer of a `replace` channel: state = the scope's latest record.
 * @throws ReplicaIntegrityError (from `fromSnapshot`) when the snapshot lacks the scope's
 *   record; (from `apply`, `subaccount` only) when an update names another subaccount.
 */
export function createReplaceReducer<T>(channel: ChannelName, pick: ReplacePick): Reducer<T, T> {
  const fromSnapshot = picker<T>(channel, pick);
  if (pick !== 'subaccount') return { channel, fromSnapshot, apply: (_state, data) => data };
  return {
    channel,
    fromSnapshot,
    apply(state, data) {
      const before = (state as SubaccountRecord).subaccount_id;
      const after = (data as SubaccountRecord).subaccount_id;
      if (after !== before) throw new ReplicaIntegrityError(`an ${channel} update for subaccount ${after} reached the replica of subaccount ${before}`);
      return data;
    },
  };
}
