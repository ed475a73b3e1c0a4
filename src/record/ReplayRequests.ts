/**
 * The HTTP requests of a replayed client: a fetch whose every request is checked against the
 * log, numbered from 1 in the order the client issues them, and held until the replayer
 * delivers the recorded answer or failure (or the client aborts it).
 */
import type { FetchLike } from '../rest';
import type { AnswerEntry, FetchFailureEntry } from './entries';
import { abortError, answerResponse, fetchFailure } from './ioShapes';
import type { ReplayLog } from './replayLog';

/** A request waiting for its recorded answer. */
interface Held {
  readonly resolve: (answer: ReturnType<typeof answerResponse>) => void;
  readonly reject: (error: Error) => void;
  /** Marks the request settled; false when it already was (aborted). */
  readonly settle: () => boolean;
}

export class ReplayRequests {
  /** The fetch the replayed client is given. */
  readonly fetch: FetchLike;
  private count = 0;
  private readonly held = new Map<number, Held>();

  constructor(log: ReplayLog) {
    this.fetch = (url, init) => this.request(log, url, init.signal);
  }

  /**
   * Settles the request of a recorded answer or failure with it, as fetch would.
   * @returns what the client did instead when it aborted the request or never issued it (a divergence)
   */
  deliver(e: AnswerEntry | FetchFailureEntry): string | undefined {
    const r = this.held.get(e[2]);
    if (r === undefined || !r.settle()) return `request #${e[2]} was aborted (or never issued) by the client`;
    this.held.delete(e[2]);
    if (e[0] === 'a') r.resolve(answerResponse(e[3], e[4], e[5], e[6]));
    else r.reject(fetchFailure(e[3], e[4], e[5]));
    return undefined;
  }

  private request(log: ReplayLog, url: string, signal: AbortSignal): Promise<ReturnType<typeof answerResponse>> {
    const id = ++this.count;
    if (log.attached()) {
      const e = log.take<readonly ['F', number, string]>('F', () => `request #${id} to ${url}`);
      if (e !== undefined && (e[1] !== id || e[2] !== url)) log.divergeAt(e, `request #${id} to ${url}`);
    }
    return new Promise((resolve, reject) => {
      let settled = false;
      const onAbort = (): void => {
        if (settled) return;
        settled = true;
        this.held.delete(id);
        reject(abortError());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.held.set(id, {
        resolve,
        reject,
        settle: () => {
          if (settled) return false;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          return true;
        },
      });
    });
  }
}
