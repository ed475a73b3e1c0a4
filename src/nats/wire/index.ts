/**
 * The wire of the bus: every name and format a relay writes and a consumer reads, in one
 * place, each format encoded and decoded in its own file: busNames (subjects, KV keys,
 * message ids), updateMessage, updateBatch, resetMessage, publishAck, snapshotRecord,
 * heartbeat, streamConfig, marketsMeta (busError, formatVersion, exactJson and schemas are
 * shared by them). Nothing here talks to NATS (the relay and the consumers do).
 *
 * - One JetStream stream (`ER_UPDATES`, subjects `er.u.>`) holds the updates of every
 *   stream: one subject per stream key (`er.u.<channel>.<scope tokens>`). One message is a
 *   BATCH: the consecutive updates `first..last` of one stream that a relay applied in one
 *   turn of its event loop (one socket read of the exchange feed: no added wait), see
 *   {@link encodeUpdateBatch}. Its JetStream message id is `<streamKey>#<first>-<last>`
 *   (header `Nats-Msg-Id`), the relay in header `Er-Relay`.
 * - One KV bucket (`er_snapshots`) holds one snapshot per stream (key `<channel>.<scope
 *   tokens>`): the snapshot's data, its exchange sequence S and the JetStream sequence a
 *   consumer reads the stream's subject from (`jsStartSeq`).
 * - Heartbeats (core NATS, not stored): `er.hb.<relayId>`, the relay's streams and their
 *   statuses.
 *
 * What the subject holds (one relay): its batches in seq order, each starting where the one
 * before ended + 1, within an epoch (see StreamRelay: between two epochs, a hole).
 *
 * What the subject holds (two relays carrying the same stream, HA): JetStream stores a batch
 * id once within its duplicate window, so a batch the other relay already stored with the
 * SAME bounds is dropped (the PubAck names the stored copy). Two relays read the exchange on
 * their own sockets and may cut different batches ([10..12] and [10..15]): both are stored,
 * and the subject then holds overlapping batches. No update is ever lost to deduplication:
 * a batch is dropped only when one with the same bounds, hence the same updates, is stored.
 * (An id from the first seq alone would drop [10..15] after [10..12], and 13..15 would be
 * missing from that relay's run.) Each relay's own batches stay contiguous, so the
 * interleaving of two relays' batches, read with the rule below, never shows a gap: when a
 * batch of relay B comes, B's previous batch (which ended at its first - 1) was already read.
 *
 * A consumer: read the KV entry (data, S, jsStartSeq), read the subject from `jsStartSeq`;
 * of each batch keep only the updates above the last one kept (above S at first: an
 * overlapping batch is trimmed, one wholly at or below is dropped), require the first one
 * kept to be the last + 1, and on a gap read the KV entry again (it is refreshed by every
 * relay at least every `snapshotRefreshMs`). Every update is thus delivered exactly once,
 * in seq order.
 *
 * Every bigint travels as a decimal string; JetStream sequences are JSON numbers (they are
 * numbers in the NATS clients). Every record carries the format version; a reader refuses
 * another version with an error that says so (relays and consumers must speak the same one).
 */
export * from './busError';
export * from './formatVersion';
export * from './busNames';
export * from './updateMessage';
export * from './updateBatch';
export * from './resetMessage';
export * from './publishAck';
export * from './exactJson';
export * from './snapshotRecord';
export * from './heartbeat';
export * from './streamConfig';
export * from './marketsMeta';
