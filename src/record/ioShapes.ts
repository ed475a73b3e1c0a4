/**
 * What the recorder and the replayer hand to the client in place of the real thing: socket
 * listeners, HTTP answers, fetch failures. Both build them the same way, so the client sees
 * the same objects during the recording and its replay.
 */

export type SocketEvent = 'open' | 'message' | 'close' | 'error';

type Listener = (...args: unknown[]) => void;

/** The listeners a client registered on a socket, by event. */
export class SocketListeners {
  private readonly byEvent: Record<SocketEvent, Listener[]> = { open: [], message: [], close: [], error: [] };

  add(event: SocketEvent, listener: (...args: never[]) => void): void {
    this.byEvent[event]?.push(listener as unknown as Listener);
  }

  emit(event: SocketEvent, args: readonly unknown[]): void {
    const list = this.byEvent[event];
    if (list.length === 1) return list[0]!(...args);
    for (const l of [...list]) l(...args);
  }
}

/** The HTTP answer the client reads: status, body text and the two headers `fetchText` looks at. */
export function answerResponse(status: number, body: string, contentLength: string | null, contentEncoding: string | null) {
  return {
    status,
    text: () => Promise.resolve(body),
    headers: {
      get(name: string): string | null {
        const n = name.toLowerCase();
        return n === 'content-length' ? contentLength : n === 'content-encoding' ? contentEncoding : null;
      },
    },
    body: null,
  };
}

/** The rejection of a request that failed (e.g. `TypeError: fetch failed`, cause `ECONNREFUSED`): an input replayed as the platform gave it (the REST client reads its name and cause), not an error of ours. */
export function fetchFailure(name: string, message: string, causeMessage: string | null): Error {
  const error = causeMessage === null ? new Error(message) : new Error(message, { cause: new Error(causeMessage) });
  error.name = name;
  return error;
}

/** The rejection of a request its caller aborted. */
export function abortError(): Error {
  const error = new Error('This operation was aborted');
  error.name = 'AbortError';
  return error;
}
