/**
 * The NATS client packages are optional peers: the core entry, the simulator and the CLI load
 * without them, and a relay that needs them says which to install.
 */
jest.mock('@nats-io/transport-node', () => {
  throw new Error("Cannot find module '@nats-io/transport-node'");
});
jest.mock('@nats-io/jetstream', () => {
  throw new Error("Cannot find module '@nats-io/jetstream'");
});
jest.mock('@nats-io/kv', () => {
  throw new Error("Cannot find module '@nats-io/kv'");
});

import * as core from '../../src';
import * as simulator from '../../src/simulator';
import { createProgram } from '../../src/cli/program';
import { ReplicaRelay } from '../../src/nats';

it('loads the core entry, the simulator and the CLI (relay command included) without the NATS packages', () => {
  expect(typeof core.ExchangeClient).toBe('function');
  expect(typeof simulator.Simulator).toBe('function');
  expect(createProgram().commands.map((c) => c.name())).toContain('relay');
});

it('names the packages to install when a relay starts without them', async () => {
  await expect(ReplicaRelay.start({ exchange: { restUrl: 'http://127.0.0.1:9' }, natsUrl: 'nats://127.0.0.1:9', streams: [] })).rejects.toMatchObject({
    code: 'ERR_BUS',
    message: expect.stringMatching(/^exchange-replica\/nats needs the NATS client packages: npm install @nats-io\/transport-node@3 @nats-io\/jetstream@3 @nats-io\/kv@3 /),
  });
});

it('checks its options before anything else', async () => {
  await expect(ReplicaRelay.start({ natsUrl: 'nats://127.0.0.1:9' })).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', message: expect.stringMatching(/'client'/) });
  await expect(ReplicaRelay.start({ exchange: { restUrl: 'http://127.0.0.1:9' }, natsUrl: 'nats://x', heartbeatMs: 0 })).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', message: expect.stringMatching(/'heartbeatMs'/) });
  await expect(ReplicaRelay.start({ exchange: { restUrl: 'http://127.0.0.1:9' }, natsUrl: 'nats://x', streams: [{ channel: 'book', scope: { market_id: 0 } }] })).rejects.toMatchObject({
    code: 'ERR_INVALID_PARAMETER',
    message: expect.stringMatching(/streams\[0\]\.scope.*is_perps is required/),
  });
  await expect(ReplicaRelay.start({ exchange: { restUrl: 'http://127.0.0.1:9' }, natsUrl: 'nats://x', prefix: 'A.B' })).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', message: expect.stringMatching(/'prefix'/) });
  // The relay id travels in a message header.
  for (const relayId of ['a\r\nb', ' a', 'a\t'])
    await expect(ReplicaRelay.start({ exchange: { restUrl: 'http://127.0.0.1:9' }, natsUrl: 'nats://x', relayId })).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', message: expect.stringMatching(/'relayId'.*control characters/) });
});
