/** `balances`: each record replaces that `token_id`'s balance. */
import type { Balance } from '../../protocol';
import { createUpsertReducer } from './upsertReducer';

/** Reducer of `balances`: state = balances by `token_id` (a live view, see KeyedSet). */
export const balancesReducer = createUpsertReducer<string, Balance>({
  channel: 'balances',
  keyOf: (b) => b.token_id,
  recordsOf: (data) => (data as { balances: readonly Balance[] }).balances,
  removes: () => false,
});
