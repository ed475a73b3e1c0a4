/** The names of a bus: its prefix, JetStream stream, KV bucket, subjects, KV keys and message ids. */
import { streamKey, type ChannelName, type Scope } from '../../protocol';
import { busError } from './busError';

/** @default prefix of every name of the bus */
export const DEFAULT_BUS_PREFIX = 'er';

/** The names of one bus (one prefix: several exchanges can share a NATS account with different prefixes). */
export interface BusNames {
  /** The prefix, e.g. `er`. */
  readonly prefix: string;
  /** JetStream stream of the updates, e.g. `ER_UPDATES`. */
  readonly stream: string;
  /** Subjects of that stream, e.g. `er.u.>`. */
  readonly updateSubjects: string;
  /** KV bucket of the snapshots, e.g. `er_snapshots`. */
  readonly bucket: string;
  /** Subjects of the heartbeats, e.g. `er.hb.>`. */
  readonly heartbeatSubjects: string;
}

const PREFIX_RE = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * The names of the bus with `prefix`.
 * @throws ExchangeReplicaError `ERR_BUS` when the prefix is not 1 to 32 characters of `a-z 0-9 _ -` starting with a letter.
 */
export function busNames(prefix: string = DEFAULT_BUS_PREFIX): BusNames {
  if (!PREFIX_RE.test(prefix)) throw busError(`invalid bus prefix ${JSON.stringify(prefix)}: expected 1 to 32 characters of a-z 0-9 _ - starting with a letter`);
  return {
    prefix,
    stream: `${prefix.toUpperCase().replace(/-/g, '_')}_UPDATES`,
    updateSubjects: `${prefix}.u.>`,
    bucket: `${prefix}_snapshots`,
    heartbeatSubjects: `${prefix}.hb.>`,
  };
}

// ---- subjects and keys --------------------------------------------------------

/** Bytes kept as they are in a token; every other byte is `-` and two uppercase hex digits. */
const PLAIN_BYTE = /[A-Za-z0-9_=]/;

/**
 * One subject token (and KV key token) for any text: letters, digits, `_` and `=` stay, every
 * other UTF-8 byte becomes `-XX` (so no `.`, space, `*` or `>` can reach a subject, the
 * result is also a valid KV key part, and two texts never give the same token).
 */
export function encodeToken(text: string): string {
  let out = '';
  for (const ch of text) {
    if (PLAIN_BYTE.test(ch)) {
      out += ch;
      continue;
    }
    for (const b of Buffer.from(ch, 'utf8')) out += `-${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out === '' ? '-' : out;
}

/** The tokens of a stream: the channel, then `key=value` for each scope key in the stream key's order. */
function streamTokens(key: string): string {
  return key.split('|').map(encodeToken).join('.');
}

/** The subject of a stream's updates, e.g. `er.u.book.market_id=0.is_perps=true`. */
export function updateSubject(names: BusNames, channel: ChannelName, scope: Scope): string {
  return `${names.prefix}.u.${streamTokens(streamKey(channel, scope))}`;
}

/** The KV key of a stream's snapshot, e.g. `book.market_id=0.is_perps=true`. */
export function snapshotKey(channel: ChannelName, scope: Scope): string {
  return streamTokens(streamKey(channel, scope));
}

/** The subject of one relay's heartbeats, e.g. `er.hb.host-1234-ab12`. */
export function heartbeatSubject(names: BusNames, relayId: string): string {
  return `${names.prefix}.hb.${encodeToken(relayId)}`;
}

/**
 * The JetStream message id of the batch of updates `first..last` of a stream: JetStream stores
 * each id once within the duplicate window, so two relays' batches are stored once only when
 * they have the same bounds (see the module comment).
 */
export function messageId(key: string, first: bigint, last: bigint): string {
  return `${key}#${first}-${last}`;
}
