/**
 * A stream's snapshot from a recording: the exchange's own loader (`loadExchangeSnapshot`:
 * one page, every page, or event history back to `since`) over a fetch that answers with
 * the recorded pages: the chosen first page, and for each further page the recorded answer
 * to the same request nearest after it. @internal
 */
import { loadExchangeSnapshot } from '../client/exchangeSnapshot';
import { interpretResponse } from '../rest/interpretResponse';
import type { LoadedSnapshot, SnapshotFetcher, SnapshotPage, SnapshotQuery } from '../replicas';
import { NotRecordedError } from './NotRecordedError';
import type { RecordedAnswer, RecordingIndex } from './recordingIndex';

/**
 * @param first the recorded answer to the snapshot's first page
 * @throws (rejects) NotRecordedError when a page the loader asks for was never fetched
 * during the recording; what interpreting a recorded answer throws (`RestApiError` for an
 * error answer, `ResponseValidationError`), and what the loader throws.
 */
export function loadRecordedSnapshot(query: SnapshotQuery, first: RecordedAnswer, index: RecordingIndex, stream: string): Promise<LoadedSnapshot> {
  const fetch: SnapshotFetcher = async (operation, params) => {
    const url = index.operationUrl(operation, params);
    const answer = url === first.url ? first : url === undefined ? undefined : pageAfter(index.answersTo(url), first.order);
    if (answer === undefined) throw new NotRecordedError(`${stream}: the recording holds no answer to ${url ?? operation} (a snapshot page that was not fetched while recording)`, { stream, operation });
    return interpretResponse(operation, { status: answer.status, text: answer.body }, {}) as SnapshotPage;
  };
  return loadExchangeSnapshot(query, fetch);
}

/** The first successful answer recorded after `order`, else the last one before it. */
function pageAfter(answers: readonly RecordedAnswer[], order: number): RecordedAnswer | undefined {
  let before: RecordedAnswer | undefined;
  for (const a of answers) {
    if (a.status < 200 || a.status >= 300) continue;
    if (a.order > order) return a;
    before = a;
  }
  return before;
}
