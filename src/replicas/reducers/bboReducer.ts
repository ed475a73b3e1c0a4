/** `bbo`: every update is a whole `Bbo` record that replaces the previous one. */
import type { Bbo } from '../../protocol';
import type { Reducer } from '../Reducer';

/** Reducer of `bbo`: state = the latest `Bbo`. */
export const bboReducer: Reducer<Bbo, Bbo, Bbo> = {
  channel: 'bbo',
  fromSnapshot: (snapshot) => snapshot,
  apply: (_state, data) => data,
};
