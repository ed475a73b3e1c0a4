/**
 * `exchange-replica/record`: recording and replay of a client's inputs (Node: files, gzip).
 * `FeedRecorder` (the `record` option of `ExchangeClient`) writes them to a file, `Replayer`
 * feeds them back to a client, exactly.
 */
export { FeedRecorder, type FeedRecorderOptions, type RecorderStats } from './FeedRecorder';
export { Replayer } from './Replayer';
export type { ReplayOptions, ReplayResult, ReplayState } from './replayOptions';
export { Recording, SessionCursor, type RecordingOptions, type SessionInfo } from './Recording';
export { RecordingFormatError, ReplayDivergenceError } from './errors';
export type { TornTail, ChunkRef } from './chunks';
export type { Entry, InputEntry, OutputEntry, SessionHeader, SessionEnd, RecordingStopReason } from './entries';
export type { JsonValue } from './json';
export { RecordingSource, type RecordedStreamInfo } from './RecordingSource';
export type { RecordingSourceOptions, RecordingSourceResult } from './recordingSourceOptions';
export { NotRecordedError } from './NotRecordedError';
export { parseReplayTime, type ReplayTime } from './replayTime';
