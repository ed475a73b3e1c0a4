/** Test harness: an engine served by the REST handler on 127.0.0.1, port 0. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeQuery, fillPath, OPERATIONS, type OperationName, type ParamValues } from '../../../src/protocol';
import type { RestFaultDecision, RestFaultHook } from '../../../src/simulator/RestFaultHook';
import type { Engine } from '../../../src/simulator/engine/Engine';
import { createRestHandler } from '../../../src/simulator/rest/createRestHandler';
import { WAIT_MS } from '../../helpers/deadlines';

export interface Harness {
  readonly base: string;
  /** Decision the fault hook returns for the next requests. */
  fault: RestFaultDecision;
  readonly hookCalls: string[];
  get(path: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }>;
  call(name: OperationName, params: ParamValues): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function serve(engine: Engine): Promise<Harness> {
  const hookCalls: string[] = [];
  const h = {} as Harness & { fault: RestFaultDecision };
  h.fault = {};
  const hook: RestFaultHook = {
    beforeRequest(op) {
      hookCalls.push(op);
      return h.fault;
    },
  };
  const server: Server = createServer(createRestHandler(engine, hook));
  // Longer than the client's idle bound (undici: 4 s), so it never closes a socket the client is reusing.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  Object.assign(h, {
    base,
    hookCalls,
    async get(path: string, init?: RequestInit) {
      const res = await fetch(base + path, { ...init, signal: AbortSignal.timeout(WAIT_MS) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
    },
    async call(name: OperationName, params: ParamValues) {
      const op = OPERATIONS[name];
      return h.get(fillPath(op.path, params) + encodeQuery(op.params, params));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return h;
}
