/**
 * Declarative query-parameter specs shared by the REST client (checks before sending),
 * the simulator (the same checks answer 400) and the CLI (flags). One spec per parameter;
 * every message names the parameter and what is accepted.
 */
import { isBase58OfByteLength } from './base58Length';
import { INT32_MAX, isUint64String, ADDRESS_BYTES } from './scalars';

export type ParamType = 'enum' | 'int32' | 'int64' | 'uint64' | 'address' | 'string';

export interface ParamSpec {
  readonly type: ParamType;
  readonly required?: boolean;
  /** Accepted values of an `enum` parameter. */
  readonly values?: readonly string[];
  readonly min?: number;
  readonly max?: number;
  /** Minimum string length of a `string` parameter. */
  readonly minLength?: number;
  /** Value the server uses when the parameter is absent (documented, not sent). */
  readonly default?: string | number;
  /** `path` parameters are substituted into the path template. */
  readonly in?: 'query' | 'path';
  readonly description?: string;
}

export type ParamSpecs = Readonly<Record<string, ParamSpec>>;

/** A rule tying parameters together (exchange-api-v1.md 4.2 note 1). */
export type ParamRule = (params: Readonly<Record<string, unknown>>) => ParamIssue | undefined;

/** What is wrong with one parameter. */
export interface ParamIssue {
  readonly param: string;
  readonly message: string;
}

export type ParamValues = Record<string, string | number>;

export type ParamResult = { ok: true; value: ParamValues } | { ok: false; issue: ParamIssue };

/** Human description of what a parameter accepts, used in every error message. */
export function describeAccepted(name: string, spec: ParamSpec): string {
  switch (spec.type) {
    case 'enum':
      return `one of ${spec.values!.map((v) => `'${v}'`).join(', ')}`;
    case 'int32':
      return `an integer from ${spec.min ?? 0} to ${spec.max ?? INT32_MAX}`;
    case 'int64':
      return `an integer from ${spec.min ?? 0} to ${Number.MAX_SAFE_INTEGER}${name.endsWith('timestamp') ? ' (Unix milliseconds)' : ''}`;
    case 'uint64':
      return 'an unsigned 64-bit integer (decimal string or bigint, 0 to 18446744073709551615)';
    case 'address':
      return 'a base58 address that decodes to exactly 32 bytes';
    case 'string':
      return spec.minLength ? `a string of at least ${spec.minLength} character(s)` : 'a string';
  }
}

function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v);
  if (typeof v === 'bigint') return `${v}n`;
  if (v === null) return 'null';
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return String(v);
}

function issue(name: string, spec: ParamSpec, got: unknown): ParamIssue {
  return {
    param: name,
    message: `invalid parameter '${name}': expected ${describeAccepted(name, spec)}, got ${show(got)}`,
  };
}

/** Checks one already-typed value (a client argument). Returns the wire form or an issue. */
export function checkParam(name: string, spec: ParamSpec, v: unknown): { ok: true; value: string | number } | { ok: false; issue: ParamIssue } {
  switch (spec.type) {
    case 'enum':
      if (typeof v === 'string' && spec.values!.includes(v)) return { ok: true, value: v };
      break;
    case 'int32':
    case 'int64': {
      const min = spec.min ?? 0;
      const max = spec.max ?? (spec.type === 'int32' ? INT32_MAX : Number.MAX_SAFE_INTEGER);
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max) return { ok: true, value: v };
      if (typeof v === 'bigint' && v >= BigInt(min) && v <= BigInt(max)) return { ok: true, value: Number(v) };
      break;
    }
    case 'uint64':
      if (typeof v === 'string' && isUint64String(v)) return { ok: true, value: v };
      if (typeof v === 'bigint' && isUint64String(v.toString())) return { ok: true, value: v.toString() };
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return { ok: true, value: String(v) };
      break;
    case 'address':
      if (typeof v === 'string' && isBase58OfByteLength(v, ADDRESS_BYTES)) return { ok: true, value: v };
      break;
    case 'string':
      if (typeof v === 'string' && v.length >= (spec.minLength ?? 0)) return { ok: true, value: v };
      break;
  }
  return { ok: false, issue: issue(name, spec, v) };
}

/**
 * Validates client arguments against a spec: unknown names, required-ness, types, ranges,
 * then the rules tying parameters together. `undefined` counts as absent.
 */
export function validateParams(specs: ParamSpecs, rules: readonly ParamRule[], input: unknown): ParamResult {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    return { ok: false, issue: { param: '(parameters)', message: `parameters must be an object, got ${show(input)}` } };
  }
  const given = (input ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    // Own properties only: `constructor` or `toString` must not pass as names the spec accepts.
    if (!Object.hasOwn(specs, key) && given[key] !== undefined) {
      const accepted = Object.keys(specs);
      return {
        ok: false,
        issue: {
          param: key,
          message: `unknown parameter '${key}': accepted parameters are ${accepted.length ? accepted.map((k) => `'${k}'`).join(', ') : 'none'}`,
        },
      };
    }
  }
  const value: ParamValues = {};
  for (const [name, spec] of Object.entries(specs)) {
    const v = given[name];
    if (v === undefined) {
      if (spec.required) {
        return { ok: false, issue: { param: name, message: `missing required parameter '${name}': expected ${describeAccepted(name, spec)}` } };
      }
      continue;
    }
    const r = checkParam(name, spec, v);
    if (!r.ok) return r;
    value[name] = r.value;
  }
  for (const rule of rules) {
    const bad = rule(value);
    if (bad) return { ok: false, issue: bad };
  }
  return { ok: true, value };
}

const INTEGER_TEXT = /^-?[0-9]+$/;

/**
 * Parses query-string values (the server side) into typed values, then validates them
 * exactly like `validateParams`. Repeated keys and non-integer text are rejected.
 */
export function parseQueryParams(specs: ParamSpecs, rules: readonly ParamRule[], query: URLSearchParams, pathValues: Record<string, string> = {}): ParamResult {
  // No prototype: a query key `__proto__` stays an (unknown) own key instead of vanishing.
  const typed: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const seen = new Set<string>();
  for (const [key, raw] of query) {
    if (seen.has(key)) return { ok: false, issue: { param: key, message: `parameter '${key}' given more than once` } };
    seen.add(key);
    typed[key] = raw;
  }
  Object.assign(typed, pathValues);
  for (const [name, raw] of Object.entries(typed)) {
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (!spec || typeof raw !== 'string') continue;
    if (spec.type === 'int32' || spec.type === 'int64') {
      if (!INTEGER_TEXT.test(raw)) return { ok: false, issue: issue(name, spec, raw) };
      const big = BigInt(raw);
      typed[name] = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    }
  }
  return validateParams(specs, rules, typed);
}

/** Encodes validated values as a query string (path parameters excluded). */
export function encodeQuery(specs: ParamSpecs, values: ParamValues): string {
  const q = new URLSearchParams();
  for (const [name, v] of Object.entries(values)) {
    if (specs[name]?.in === 'path') continue;
    q.set(name, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Substitutes path parameters into a template such as `/markets/{market_id}`. */
export function fillPath(template: string, values: ParamValues): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(values[name])));
}

/** TypeScript type of a parameter value as the client accepts it. */
export type ParamInput<S extends ParamSpec> = S['type'] extends 'enum'
  ? S['values'] extends readonly (infer V)[]
    ? V
    : string
  : S['type'] extends 'int32' | 'int64'
    ? number
    : S['type'] extends 'uint64'
      ? string | bigint
      : string;

type RequiredKeys<P extends ParamSpecs> = { [K in keyof P]: P[K]['required'] extends true ? K : never }[keyof P];
type OptionalKeys<P extends ParamSpecs> = Exclude<keyof P, RequiredKeys<P>>;

/** The typed parameter object of an operation, derived from its spec. */
export type ParamsOf<P extends ParamSpecs> = { [K in RequiredKeys<P>]: ParamInput<P[K]> } & {
  [K in OptionalKeys<P>]?: ParamInput<P[K]>;
};
