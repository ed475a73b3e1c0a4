/** JSON that carries its values exactly, and the reading of the bus's JSON records. */
import { ExchangeReplicaError } from '../../errors';
import { messageOf } from '../../errors/messageOf';
import { busError } from './busError';

/**
 * JSON of a value made of JSON values only, exactly: a bigint, a non-finite number or
 * anything JSON cannot carry is refused rather than changed (the REST and feed records hold
 * u64 quantities as decimal strings, so their `data` always passes).
 * @throws ExchangeReplicaError `ERR_BUS` naming the path of the first value JSON cannot carry exactly.
 */
export function exactJson(value: unknown): string {
  checkJsonValue(value, '$');
  return JSON.stringify(value);
}

export function checkJsonValue(v: unknown, path: string): void {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(v)) throw busError(`${path} is ${v}: JSON cannot carry it`);
      return;
    case 'object':
      if (v === null) return;
      if (Array.isArray(v)) {
        v.forEach((x, i) => checkJsonValue(x, `${path}[${i}]`));
        return;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) throw busError(`${path} is a ${(v as object).constructor?.name ?? 'non-plain object'}: only plain objects are carried`);
      for (const [k, x] of Object.entries(v)) if (x !== undefined) checkJsonValue(x, `${path}.${k}`);
      return;
    default:
      throw busError(`${path} is a ${typeof v}: JSON cannot carry it exactly`);
  }
}

/** `JSON.parse` of a bus record (`what` names it). @throws ExchangeReplicaError `ERR_BUS` when the text is not JSON. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new ExchangeReplicaError('ERR_BUS', `invalid ${what}: not JSON (${messageOf(cause)})`, {}, { cause });
  }
}
