/**
 * Bad input on the REST side, table-driven from the operations table:
 * - every operation, every parameter, every class of bad value (missing, wrong type, out of
 *   range, bad enum, bad base58, wrong byte length, unknown name, not an object, conflicting
 *   parameters): a clear InvalidParameterError naming the parameter, and nothing sent;
 * - every operation, every class of malformed server answer (bad JSON, wrong shape, error
 *   bodies of unknown shape): a typed error, never an unhandled rejection.
 * (test/rest/operations.test.ts has one bad call per operation; this covers every class.)
 */
import { ExchangeReplicaError, InvalidParameterError, ResponseValidationError, RestApiError } from '../../src';
import { encodeBase58, OPERATION_NAMES, OPERATIONS, type OperationName, type ParamSpec } from '../../src/protocol';
import { RestClient } from '../../src/rest';
import { HttpStub } from '../helpers/HttpStub';
import { ADDRESS, CASES, TS } from '../rest/fixtures';

let stub: HttpStub;
let rest: RestClient;
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  stub = await HttpStub.start();
  rest = new RestClient({ baseUrl: stub.baseUrl, retry: { retries: 0 }, timeoutMs: 5000 });
});
afterEach(() => stub.reset());
afterAll(async () => {
  await stub.close();
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

/** Bad values of each parameter type, each with the class it belongs to. */
function badValues(spec: ParamSpec): [string, unknown][] {
  const common: [string, unknown][] = [['wrong type: object', { v: 1 }], ['wrong type: array', [1]], ['wrong type: boolean', true], ['wrong type: null', null]];
  switch (spec.type) {
    case 'enum': {
      const first = spec.values![0]!;
      return [...common, ['wrong type: number', 5], ['bad enum', 'NOPE'], ['bad enum: empty', ''], ['bad enum: case', first.toUpperCase() === first ? first.toLowerCase() + 'x' : first.toUpperCase()], ['bad enum: padded', ` ${first}`]];
    }
    case 'int32':
    case 'int64': {
      const min = spec.min ?? 0;
      const max = spec.max ?? (spec.type === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER);
      return [
        ...common,
        ['wrong type: numeric string', String(min)],
        ['out of range: below min', min - 1],
        ['out of range: above max', max + 1],
        ['out of range: not an integer', min + 0.5],
        ['out of range: NaN', Number.NaN],
        ['out of range: Infinity', Number.POSITIVE_INFINITY],
        ['out of range: beyond 2^53', 2 ** 53 + 2],
        ['out of range: bigint above max', BigInt(max) + 1n],
      ];
    }
    case 'uint64':
      return [...common, ['out of range: negative number', -1], ['out of range: negative string', '-1'], ['out of range: 2^64', '18446744073709551616'], ['out of range: bigint 2^64', 1n << 64n], ['non-numeric: exponent', '1e3'], ['non-numeric: hex', '0x10'], ['non-numeric: empty', ''], ['non-numeric: padded', ' 1'], ['out of range: fraction', 1.5]];
    case 'address':
      return [
        ...common,
        ['wrong type: number', 123],
        ['bad base58: empty', ''],
        ['bad base58: characters 0 O I l', `0OIl${ADDRESS.slice(4)}`],
        ['bad base58: punctuation', 'not-base58!'],
        ['wrong byte length: 31', encodeBase58(new Uint8Array(31).fill(7))],
        ['wrong byte length: 33', encodeBase58(new Uint8Array(33).fill(7))],
        ['wrong byte length: 28 (an order id)', encodeBase58(new Uint8Array(28).fill(9))],
      ];
    case 'string':
      return [...common, ['wrong type: number', 5], ...(spec.minLength ? ([['too short: empty', '']] as [string, unknown][]) : [])];
  }
}

/** Parameter combinations each rule refuses, and the parameter named. */
const CONFLICTS: Partial<Record<OperationName, { params: Record<string, unknown>; param: string }[]>> = {
  orders: [{ params: { address: ADDRESS, subaccount_id: 0, status: 'all' }, param: 'limit' }],
  liquidations: [
    { params: { subaccount_id: 0, limit: 10 }, param: 'address' },
    { params: { limit: 10 }, param: 'market_id' },
  ],
  transactions: [
    { params: { hash: 'h', limit: 5 }, param: 'hash' },
    { params: { hash: 'h', cursor: 'c1' }, param: 'hash' },
  ],
  blocks: [
    { params: { rollup_height: '5', limit: 3 }, param: 'rollup_height' },
    { params: { rollup_height: 5n, cursor: 'c' }, param: 'rollup_height' },
  ],
};

type Case = { label: string; params: unknown; param: string };

/** Every bad call of one operation. */
function badCalls(name: OperationName): Case[] {
  const specs = OPERATIONS[name].params as Record<string, ParamSpec>;
  const base = { ...((CASES[name].params ?? {}) as Record<string, unknown>) };
  const out: Case[] = [];
  for (const [param, spec] of Object.entries(specs)) {
    if (spec.required) {
      const { [param]: _omitted, ...rest } = base;
      out.push({ label: `missing ${param}`, params: rest, param });
    }
    for (const [label, v] of badValues(spec)) out.push({ label: `${param}: ${label}`, params: { ...base, [param]: v }, param });
  }
  out.push({ label: 'unknown parameter', params: { ...base, bogus_param: 1 }, param: 'bogus_param' });
  out.push({ label: 'a misspelt parameter', params: { ...base, marketType: 'perp' }, param: 'marketType' });
  for (const [label, p] of [['a string', 'x'], ['an array', []], ['null', null], ['a number', 7]] as const) out.push({ label: `parameters are ${label}`, params: p, param: '(parameters)' });
  for (const c of CONFLICTS[name] ?? []) out.push({ label: `conflict: ${JSON.stringify(c.params, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`, ...c });
  return out;
}

test('the conflict table covers every operation with a rule tying parameters together', () => {
  const withRules = OPERATION_NAMES.filter((n) => OPERATIONS[n].rules.length > 0).sort();
  expect(Object.keys(CONFLICTS).sort()).toEqual(withRules);
});

describe.each(OPERATION_NAMES)('%s: bad parameters', (name) => {
  test('every class refused client-side, naming the parameter, nothing sent', async () => {
    stub.route(CASES[name].path, () => ({ json: {} }));
    const cases = badCalls(name);
    expect(cases.length).toBeGreaterThan(4);
    for (const c of cases) {
      const err = await rest.request(name, c.params as never).then(
        () => new Error(`${c.label}: accepted`),
        (e: unknown) => e,
      );
      expect({ label: c.label, kind: (err as Error).constructor.name, param: (err as InvalidParameterError).context?.param }).toEqual({ label: c.label, kind: 'InvalidParameterError', param: c.param });
      expect((err as Error).message).toContain(c.param === '(parameters)' ? 'parameters must be an object' : c.param);
    }
    expect(stub.requests).toHaveLength(0);
  });
});

/** Malformed answers: status, body, and the error class they must become. */
const MALFORMED: { label: string; status: number; body: { text: string } | { json: unknown }; error: typeof ResponseValidationError | typeof RestApiError }[] = [
  { label: '200, truncated JSON', status: 200, body: { text: '{"data": [' }, error: ResponseValidationError },
  { label: '200, empty body', status: 200, body: { text: '' }, error: ResponseValidationError },
  { label: '200, JSON null', status: 200, body: { json: null }, error: ResponseValidationError },
  { label: '200, a number', status: 200, body: { json: 42 }, error: ResponseValidationError },
  { label: '200, a string', status: 200, body: { json: 'data' }, error: ResponseValidationError },
  { label: '200, envelope with data of the wrong type', status: 200, body: { json: { data: 42, timestamp_ns: TS, next_cursor: null, sequence: '1' } }, error: ResponseValidationError },
  { label: '200, envelope with a negative sequence', status: 200, body: { json: { data: 42, timestamp_ns: TS, sequence: '-1' } }, error: ResponseValidationError },
  { label: '400, error body of unknown shape', status: 400, body: { json: { foo: 1 } }, error: ResponseValidationError },
  { label: '400, numeric code without message', status: 400, body: { json: { code: 5 } }, error: ResponseValidationError },
  { label: '500, HTML', status: 500, body: { text: '<html>oops</html>' }, error: ResponseValidationError },
  { label: '503, empty', status: 503, body: { text: '' }, error: ResponseValidationError },
  { label: '404, documented error body', status: 404, body: { json: { code: 'NOT_FOUND', error: 'no such thing' } }, error: RestApiError },
  { label: '400, second documented error body', status: 400, body: { json: { code: 40001, message: 'bad' } }, error: RestApiError },
];

describe.each(OPERATION_NAMES)('%s: malformed answers', (name) => {
  test('each becomes a typed error', async () => {
    for (const m of MALFORMED) {
      stub.route(CASES[name].path, () => ({ status: m.status, ...m.body }));
      const err = await rest.call(name, CASES[name].params).then(
        (v) => new Error(`${m.label}: resolved ${JSON.stringify(v)}`),
        (e: unknown) => e,
      );
      expect({ label: m.label, typed: err instanceof ExchangeReplicaError, kind: (err as Error).constructor.name }).toEqual({ label: m.label, typed: true, kind: m.error.name });
      expect((err as ExchangeReplicaError).context).toMatchObject({ operation: name, status: m.status });
    }
  });
});
