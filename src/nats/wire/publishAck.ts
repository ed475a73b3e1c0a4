/** JetStream's reply to a publish: its acknowledgement (PubAck), or a status without one. */
import type { ExchangeReplicaError } from '../../errors';
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

/** JetStream's reply to a publish as the NATS client gives it: a PubAck, or a status without one. */
export interface PublishReply {
  readonly data: Uint8Array;
  readonly headers?: { readonly hasError: boolean; readonly code: number; readonly description: string };
  string(): string;
}

/** The errors that say no stream leader answered (see {@link noLeaderError}). */
const NO_LEADER = new WeakSet<object>();

/**
 * A 503 answer (no responders: no stream takes the subject now; no leader, in a cluster), or
 * no leader for that long: `ERR_BUS`, told from the others by {@link isNoLeader}.
 */
export function noLeaderError(message: string): ExchangeReplicaError {
  const error = busError(message);
  NO_LEADER.add(error);
  return error;
}

/** Whether `error` is one of {@link noLeaderError}'s. */
export function isNoLeader(error: unknown): boolean {
  return typeof error === 'object' && error !== null && NO_LEADER.has(error);
}

/**
 * Reads JetStream's reply to a publish: its acknowledgement ({@link decodePublishAck}), or a
 * status without one (503: no stream takes the subject).
 * @throws ExchangeReplicaError `ERR_BUS` for a refusal, a status or an unreadable answer; a 503 {@link isNoLeader}.
 */
export function readPublishReply(reply: PublishReply): PublishAck {
  if (reply.data.length === 0 && reply.headers?.hasError) {
    const text = `JetStream did not take the message: ${reply.headers.code} ${reply.headers.description}`;
    throw reply.headers.code === 503 ? noLeaderError(text) : busError(text);
  }
  return decodePublishAck(reply.string());
}
