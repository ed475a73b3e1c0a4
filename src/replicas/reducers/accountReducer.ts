/** `account`: a `Subaccount` record replaced whole; the snapshot `{address, subaccounts}` gives the scope's one. */
import type { AccountInfo, Subaccount } from '../../protocol';
import { ReplicaIntegrityError, type Reducer } from '../Reducer';

/**
 * Reducer of `account`: state = the scope's `Subaccount`.
 * @throws ReplicaIntegrityError when the snapshot lacks the subaccount or an update names another one.
 */
export const accountReducer: Reducer<Subaccount, Subaccount, AccountInfo> = {
  channel: 'account',
  fromSnapshot(snapshot, scope) {
    const found = snapshot.subaccounts.find((s) => s.subaccount_id === scope.subaccount_id);
    if (!found) throw new ReplicaIntegrityError(`the account snapshot of ${snapshot.address} has no subaccount ${String(scope.subaccount_id)}`);
    return found;
  },
  apply(state, data) {
    if (data.subaccount_id !== state.subaccount_id) {
      throw new ReplicaIntegrityError(`an account update for subaccount ${data.subaccount_id} reached the replica of subaccount ${state.subaccount_id}`);
    }
    return data;
  },
};
