/** What the replayed client's sockets and fetch need of the replayer: the log, checked. @internal */
import type { Entry } from './entries';

export interface ReplayLog {
  /** True while the client's outputs are checked against the log (not after its end, a divergence, a failure or a stop). */
  attached(): boolean;
  /** The log's next entry when it has kind `tag`, consumed; else a divergence (undefined), or undefined past the log's end. */
  take<T extends Entry>(tag: T[0], actual: () => string): T | undefined;
  /** Reports that the client did `actual` where the log has `expected`. */
  divergeAt(expected: Entry | undefined, actual: string): void;
}
