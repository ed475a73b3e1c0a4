/**
 * The fleet's ledger of a combined account's fills: a fleet that subscribes to an account
 * replica already running (the client's pooled one, as the second fleet of busClient's 'join
 * a running stream' does) first gets the replica's latest emission again, with the changes
 * that emission made. Its `recentFills` already hold them: the baseline is the state, and the
 * changes of that first emission are not counted again (they were counted as a duplicate fill
 * in about 1 run of 4: whenever the latest emission was a fill's).
 */
import { of } from 'rxjs';
import type { AccountReplicaState, ExchangeClient } from '../../src';
import { address, fill } from '../replicas/fixtures';
import { ReplicaFleet } from './ReplicaFleet';

test('a fleet joining a running account replica counts the fills of its first emission once', () => {
  const latest = { status: 'live', state: { recentFills: [fill(1), fill(2)] }, changes: [{ kind: 'fill', fill: fill(2) }] } as unknown as AccountReplicaState;
  const next = { status: 'live', state: { recentFills: [fill(1), fill(2), fill(3)] }, changes: [{ kind: 'fill', fill: fill(3) }] } as unknown as AccountReplicaState;
  const client = { account: () => of(latest, next) } as unknown as ExchangeClient;
  const fleet = new ReplicaFleet(client, { markets: [], resolutions: [], markResolutions: [], accounts: [{ address: address(1), subaccount_id: 0 }], accountParts: false }).start();
  const { duplicates, examples } = fleet.accounts[0]!.fills.findings;
  expect({ duplicates, examples }).toEqual({ duplicates: 0, examples: [] });
  expect(fleet.accounts[0]!.fills.lastSequence).toBe(3n);
  fleet.stop();
});
