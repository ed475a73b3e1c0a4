/**
 * Parameter checks shared by the client (validateParams) and the server (parseQueryParams):
 * enums, ranges, int32 bounds, the rules of note 1, and client encode -> server parse.
 */
import fc from 'fast-check';
import {
  encodeBase58,
  encodeQuery,
  fillPath,
  INT32_MAX,
  OPERATION_NAMES,
  OPERATIONS,
  parseQueryParams,
  UINT64_MAX,
  validateParams,
  type OperationName,
  type ParamSpec,
  type ParamSpecs,
} from '../../src/protocol';

const RUNS = { seed: 99173, numRuns: 200 } as const;
const ADDRESS = encodeBase58(new Uint8Array(32).fill(3));

const specsOf = (name: OperationName) => OPERATIONS[name].params as ParamSpecs;
const check = (name: OperationName, input: unknown) => validateParams(specsOf(name), OPERATIONS[name].rules, input);
const parse = (name: OperationName, query: string, path: Record<string, string> = {}) =>
  parseQueryParams(specsOf(name), OPERATIONS[name].rules, new URLSearchParams(query), path);

/** A valid value of one parameter. */
function valueOf(spec: ParamSpec): fc.Arbitrary<string | number> {
  switch (spec.type) {
    case 'enum':
      return fc.constantFrom(...spec.values!);
    case 'int32':
      return fc.integer({ min: spec.min ?? 0, max: spec.max ?? INT32_MAX });
    case 'int64':
      return fc.integer({ min: spec.min ?? 0, max: Number.MAX_SAFE_INTEGER });
    case 'uint64':
      return fc.bigInt(0n, UINT64_MAX).map(String);
    case 'address':
      return fc.uint8Array({ minLength: 32, maxLength: 32 }).map(encodeBase58);
    case 'string':
      return fc.string({ minLength: Math.max(spec.minLength ?? 0, 1), maxLength: 20, unit: 'grapheme' });
  }
}

/** Valid-looking parameter objects of an operation: required keys always, optional ones sometimes. */
function paramsOf(name: OperationName): fc.Arbitrary<Record<string, string | number>> {
  const specs = specsOf(name);
  const shape = Object.fromEntries(Object.entries(specs).map(([k, s]) => [k, valueOf(s)]));
  const requiredKeys = Object.entries(specs).filter(([, s]) => s.required).map(([k]) => k);
  return fc.record(shape, { requiredKeys }) as fc.Arbitrary<Record<string, string | number>>;
}

describe('client encode -> server parse', () => {
  test.each(OPERATION_NAMES)('%s: whatever the client accepts, the server parses to the same values', (name) => {
    const specs = specsOf(name);
    const hasRules = OPERATIONS[name].rules.length > 0;
    fc.assert(
      fc.property(paramsOf(name), (input) => {
        const client = check(name, input);
        if (!hasRules) expect(client.ok).toBe(true);
        if (!client.ok) return;
        const path: Record<string, string> = {};
        for (const [k, s] of Object.entries(specs)) if (s.in === 'path' && client.value[k] !== undefined) path[k] = String(client.value[k]);
        const filled = fillPath(OPERATIONS[name].path, client.value);
        expect(filled.includes('{')).toBe(false);
        const server = parse(name, encodeQuery(specs, client.value).slice(1), path);
        expect(server).toEqual(client);
      }),
      { ...RUNS, numRuns: 60 },
    );
  });
});

describe('enums', () => {
  const enumParams = OPERATION_NAMES.flatMap((name) =>
    Object.entries(specsOf(name))
      .filter(([, s]) => s.type === 'enum')
      .map(([param, s]) => [name, param, s] as const),
  );

  test.each(enumParams)('%s.%s accepts exactly its values and names itself with them otherwise', (name, param, spec) => {
    fc.assert(
      fc.property(paramsOf(name), fc.string({ maxLength: 12 }), (base, wrong) => {
        fc.pre(!spec.values!.includes(wrong));
        const r = check(name, { ...base, [param]: wrong });
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.issue.param).toBe(param);
        for (const v of spec.values!) expect(r.issue.message).toContain(`'${v}'`);
      }),
      { ...RUNS, numRuns: 50 },
    );
  });
});

describe('integer ranges', () => {
  const intParams = OPERATION_NAMES.flatMap((name) =>
    Object.entries(specsOf(name))
      .filter(([, s]) => s.type === 'int32' || s.type === 'int64')
      .map(([param, s]) => [name, param, s] as const),
  );

  test.each(intParams)('%s.%s: in range accepted, out of range or non-integer refused (client and server)', (name, param, spec) => {
    const min = spec.min ?? 0;
    const max = spec.max ?? (spec.type === 'int32' ? INT32_MAX : Number.MAX_SAFE_INTEGER);
    const ok = (v: unknown) => {
      const r = check(name, { ...required(name), [param]: v });
      return r.ok || r.issue.param !== param;
    };
    const serverOk = (text: string) => {
      const q = new URLSearchParams(Object.entries(required(name)).map(([k, v]): [string, string] => [k, String(v)]));
      q.set(param, text);
      const r = parseQueryParams(specsOf(name), OPERATIONS[name].rules, q);
      return r.ok || r.issue.param !== param;
    };
    expect(ok(min) && ok(max)).toBe(true);
    expect(ok(min - 1) || ok(max + 1)).toBe(false);
    fc.assert(fc.property(fc.integer({ min, max }), (v) => ok(v) && serverOk(String(v))), { ...RUNS, numRuns: 50 });
    // Above the range, as bigint too (int64 goes up to 2^53-1 here; beyond, values are bigint).
    fc.assert(fc.property(fc.bigInt(BigInt(max) + 1n, BigInt(max) + (1n << 70n)), (v) => !ok(v) && !serverOk(String(v))), { ...RUNS, numRuns: 30 });
    fc.assert(fc.property(fc.integer({ min: Number.MIN_SAFE_INTEGER, max: min - 1 }), (v) => !ok(v) && !serverOk(String(v))), { ...RUNS, numRuns: 30 });
    for (const v of [min + 0.5, Number.NaN, Number.POSITIVE_INFINITY, String(min), null, true]) expect(ok(v)).toBe(false);
    for (const t of ['', ' 1', '1.0', '1e2', 'abc', '99999999999999999999999']) expect(serverOk(t)).toBe(false);
  });

  test('int32 parameters stop at 2^31-1; int64 timestamps go beyond it', () => {
    const base = { market_type: 'perp', market_id: 0, resolution: '1m', start_timestamp: 0, end_timestamp: 1, count_back: 1 };
    expect(check('candles', { ...base, market_id: 2 ** 31 - 1 }).ok).toBe(true);
    expect(check('candles', { ...base, market_id: 2 ** 31 })).toMatchObject({ ok: false, issue: { param: 'market_id' } });
    expect(check('candles', { ...base, end_timestamp: 2 ** 40 }).ok).toBe(true);
    expect(parse('candles', 'market_type=perp&market_id=2147483648&resolution=1m&start_timestamp=0&end_timestamp=1&count_back=1')).toMatchObject({ ok: false, issue: { param: 'market_id' } });
  });
});

/** The required parameters of an operation with fixed valid values. */
function required(name: OperationName): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, s] of Object.entries(specsOf(name))) {
    if (!s.required) continue;
    out[k] = s.type === 'enum' ? s.values![0]! : s.type === 'address' ? ADDRESS : s.type === 'uint64' ? '1' : s.type === 'string' ? 'x' : (s.min ?? 0);
  }
  return out;
}

describe('presence', () => {
  test.each(OPERATION_NAMES)('%s: a missing required parameter or an unknown one is named', (name) => {
    for (const k of Object.keys(required(name))) {
      const { [k]: _, ...rest } = required(name);
      expect(check(name, rest)).toMatchObject({ ok: false, issue: { param: k } });
    }
    expect(check(name, { ...required(name), bogus_param: 1 })).toMatchObject({ ok: false, issue: { param: 'bogus_param' } });
  });

  test.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])('a name inherited from Object.prototype (%s) is an unknown parameter, client and server', (key) => {
    expect(check('status', { [key]: 1 })).toMatchObject({ ok: false, issue: { param: key, message: expect.stringContaining('accepted parameters are none') } });
    expect(check('bbo', { ...required('bbo'), [key]: 'x' })).toMatchObject({ ok: false, issue: { param: key } });
    expect(parse('bbo', `market_type=perp&market_id=1&${key}=1`)).toMatchObject({ ok: false, issue: { param: key } });
  });

  test('repeated query keys and non-object parameters are refused', () => {
    expect(parse('bbo', 'market_type=perp&market_id=1&market_id=2')).toMatchObject({ ok: false, issue: { param: 'market_id' } });
    expect(check('bbo', 'market_type=perp')).toMatchObject({ ok: false });
    expect(check('status', undefined).ok).toBe(true);
  });
});

describe('rules tying parameters together (note 1)', () => {
  const subset = fc.record({ market_id: fc.boolean(), address: fc.boolean(), subaccount_id: fc.boolean() });

  test('liquidations: at least one filter, and address whenever subaccount_id is given', () => {
    fc.assert(
      fc.property(subset, (s) => {
        const input: Record<string, unknown> = { limit: 10 };
        if (s.market_id) input.market_id = 0;
        if (s.address) input.address = ADDRESS;
        if (s.subaccount_id) input.subaccount_id = 0;
        const expected = (s.market_id || s.address) && (!s.subaccount_id || s.address);
        const r = check('liquidations', input);
        expect(r.ok).toBe(expected);
        if (!r.ok) expect(['market_id', 'address']).toContain(r.issue.param);
      }),
      RUNS,
    );
  });

  test('orders: limit is required unless client_order_id is given', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), (limit, coid) => {
        const input: Record<string, unknown> = { address: ADDRESS, subaccount_id: 0, status: 'all' };
        if (limit) input.limit = 10;
        if (coid) input.client_order_id = '5';
        const r = check('orders', input);
        expect(r.ok).toBe(limit || coid);
        if (!r.ok) expect(r.issue.param).toBe('limit');
      }),
      RUNS,
    );
  });

  test.each([
    ['transactions', 'hash', 'abc'],
    ['blocks', 'rollup_height', '12'],
  ] as const)('%s: %s cannot be combined with limit or cursor', (name, key, value) => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (single, limit, cursor) => {
        const input: Record<string, unknown> = {};
        if (single) input[key] = value;
        if (limit) input.limit = 5;
        if (cursor) input.cursor = 'c';
        const r = check(name, input);
        expect(r.ok).toBe(!(single && (limit || cursor)));
        if (!r.ok) expect(r.issue.param).toBe(key);
        const server = parse(name, new URLSearchParams(Object.entries(input).map(([k, v]): [string, string] => [k, String(v)])).toString());
        expect(server.ok).toBe(r.ok);
      }),
      RUNS,
    );
  });
});
