import { busError } from './busError';

/** What JetStream answers to a stored (or deduplicated) message. */
export interface PublishAck {
  /** The JetStream sequence of the message (of the stored copy for a duplicate). */
  readonly seq: number;
  /** The message id was already stored within the duplicate window. */
  readonly duplicate: boolean;
}

/** nats-server's own rendering of a PubAck, read without `JSON.parse`; anything else takes the general path. */
const PUB_ACK = /^\{"stream":"[^"\\]*",(?:"domain":"[^"\\]*",)?"seq":(\d{1,15})(,"duplicate":true)?\}$/;

/**
 * Reads JetStream's answer to a publish (`{"stream":..,"seq":..,"duplicate":..}` or
 * `{"error":{..}}`).
 * @throws ExchangeReplicaError `ERR_BUS` with JetStream's description for a negative answer or an unreadable one.
 */
export function decodePublishAck(text: string): PublishAck {
  const m = PUB_ACK.exec(text);
  if (m !== null) return { seq: Number(m[1]), duplicate: m[2] !== undefined };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw busError(`unreadable JetStream acknowledgement ${JSON.stringify(text.slice(0, 200))}`);
  }
  const o = (typeof v === 'object' && v !== null ? v : {}) as { seq?: unknown; duplicate?: unknown; error?: { code?: unknown; err_code?: unknown; description?: unknown } | null };
  if (typeof o.error === 'object' && o.error !== null) throw busError(`JetStream refused the message: ${String(o.error.description ?? 'no description')} (code ${String(o.error.code)}, err_code ${String(o.error.err_code)})`);
  if (typeof o.seq !== 'number' || !Number.isSafeInteger(o.seq) || o.seq < 1) throw busError(`unreadable JetStream acknowledgement ${JSON.stringify(text.slice(0, 200))}`);
  return { seq: o.seq, duplicate: o.duplicate === true };
}
