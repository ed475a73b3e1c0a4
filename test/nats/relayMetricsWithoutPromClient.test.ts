/**
 * prom-client is an optional peer: the relay, its CLI and `exchange-replica/nats` load without
 * it, and asking for metrics says what to install (ERR_BUS), options checked first.
 */
jest.mock('prom-client', () => {
  throw new Error("Cannot find module 'prom-client'");
});

import { serveRelayMetrics, type MetricsRelay } from '../../src/nats';
import { createProgram } from '../../src/cli/program';

/** Never reached: the package is loaded before the relay is read. */
const relay = {} as MetricsRelay;

it('names the package to install when metrics are asked for without prom-client', async () => {
  expect(createProgram().commands.map((c) => c.name())).toContain('relay');
  await expect(serveRelayMetrics(relay, { port: 0 })).rejects.toMatchObject({ code: 'ERR_BUS', message: expect.stringMatching(/^relay metrics need prom-client: npm install prom-client@15 /) });
  await expect(serveRelayMetrics(relay, { port: -1 })).rejects.toMatchObject({ code: 'ERR_INVALID_PARAMETER', context: { param: 'port' } });
});
