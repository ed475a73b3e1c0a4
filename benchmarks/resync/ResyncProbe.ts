/**
 * Instruments the library's client from the outside, through two of its documented options:
 * the socket class (`connection.WebSocket`: the default Node socket, stamping each message as it
 * arrives, before the library sees it) and the REST client's `fetch` (`rest.fetch`: times the
 * whole request, body included, so the time spent inside it is the REST round trip and
 * everything else is the client's own work). Nothing in the library is changed.
 */
import type { RawSocketData, WebSocketConstructor } from '../../src/connection';
import type { FetchLike } from '../../src/rest';
import { instrumentedSocket } from '../lib/instrumentedSocket';

/** A `resync_required` frame is small; larger frames are not searched. */
const SMALL_FRAME = 512;
const RESYNC_MARK = '"resync_required"';

export interface TimedFetch {
  readonly url: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly bytes: number;
  readonly status: number;
}

export class ResyncProbe {
  /** Messages received on the feed socket. */
  messages = 0;
  /** hrtime of the latest `resync_required` frame's arrival, and the message count then. */
  resyncAtNs = 0n;
  messagesAtResync = 0;
  readonly fetches: TimedFetch[] = [];
  /** The body of the latest REST answer (for the offline breakdown). */
  lastBody = '';

  /** The default socket class with this probe's 'message' listener first. */
  socketClass(): WebSocketConstructor {
    return instrumentedSocket((data) => this.onMessage(data));
  }

  /** A `fetch` that reads the whole body before returning, timing both. */
  fetch(): FetchLike {
    return async (input, init) => {
      const startNs = process.hrtime.bigint();
      const res = await globalThis.fetch(input, init);
      const text = await res.text();
      const endNs = process.hrtime.bigint();
      this.fetches.push({ url: input, startNs, endNs, bytes: text.length, status: res.status });
      this.lastBody = text;
      return { status: res.status, text: async () => text };
    };
  }

  private onMessage(data: RawSocketData): void {
    const now = process.hrtime.bigint();
    this.messages++;
    if (typeof data === 'string' && data.length < SMALL_FRAME && data.includes(RESYNC_MARK)) {
      this.resyncAtNs = now;
      this.messagesAtResync = this.messages;
    }
  }
}
