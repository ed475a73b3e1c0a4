/**
 * Size limit of REST answers (`maxResponseBytes`): the body is read as a stream and the
 * request aborted as soon as it passes the limit (at once for a Content-Length over it), so
 * a server sending far too much costs neither its whole body in memory nor its whole
 * transfer. Real HTTP servers on 127.0.0.1 and an injected fetch for the chunk-level cases.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidParameterError, ResponseTooLargeError, type ExchangeReplicaError } from '../../src/errors';
import { RestClient, type FetchLike } from '../../src/rest';
import { fetchText, type BodyReaderLike } from '../../src/rest/fetchText';

const MiB = 1024 * 1024;

/** An HTTP server whose one handler decides everything; it records what each answer wrote and when its connection closed. */
class BodyServer {
  requests = 0;
  written = 0;
  closedEarly = false;
  private readonly closeWaiters: Array<{ n: number; resolve: () => void }> = [];
  private closedCount = 0;

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(handler: (res: ServerResponse, s: BodyServer) => void): Promise<BodyServer> {
    let s: BodyServer | undefined;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      s!.requests++;
      res.on('close', () => {
        if (!res.writableFinished) s!.closedEarly = true;
        s!.closedCount++;
        for (const w of s!.closeWaiters.filter((w) => s!.closedCount >= w.n)) {
          s!.closeWaiters.splice(s!.closeWaiters.indexOf(w), 1);
          w.resolve();
        }
      });
      req.resume();
      handler(res, s!);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    s = new BodyServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return s;
  }

  /** Resolves once `n` answers have had their connection closed. */
  waitClosed(n = 1): Promise<void> {
    if (this.closedCount >= n) return Promise.resolve();
    return new Promise((resolve) => this.closeWaiters.push({ n, resolve }));
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}

/**
 * Streams `total` bytes of `x` lazily (64 KiB at a time, only when the socket drains), never
 * holding more than one chunk; calls `onChunk` after each write.
 */
function streamLazily(res: ServerResponse, s: BodyServer, total: number, onChunk: () => void = () => undefined): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const pump = (): void => {
    while (s.written < total && !res.destroyed) {
      s.written += chunk.length;
      onChunk();
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

async function failure(p: Promise<unknown>): Promise<ExchangeReplicaError> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: ExchangeReplicaError) => e,
  );
}

let server: BodyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const BBO = { market_type: 'perp', market_id: 0 } as const;

describe('RestClient: maxResponseBytes', () => {
  test('the default is 64 MiB; invalid values are rejected naming the option', () => {
    expect(new RestClient({ baseUrl: 'http://127.0.0.1:9' }).options.maxResponseBytes).toBe(64 * MiB);
    expect(new RestClient({ baseUrl: 'http://127.0.0.1:9', maxResponseBytes: 1000 }).options.maxResponseBytes).toBe(1000);
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '10' as unknown as number]) {
      let error: unknown;
      try {
        new RestClient({ baseUrl: 'http://127.0.0.1:9', maxResponseBytes: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidParameterError);
      expect(error).toMatchObject({ param: 'maxResponseBytes' });
    }
  });

  /** Requests a lazily streamed 500 MB body; returns the error, the server and the RSS growth peak seen meanwhile. */
  async function hugeBody(maxResponseBytes: number | undefined): Promise<{ e: ExchangeReplicaError; s: BodyServer; growth: number }> {
    const total = 500 * 1000 * 1000;
    let measuring = false;
    let base = 0;
    let peak = 0;
    const sample = () => {
      const rss = process.memoryUsage.rss();
      if (rss > peak) peak = rss;
    };
    const s = (server = await BodyServer.start((res, srv) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!measuring) return void res.end('{}');
      streamLazily(res, srv, total, sample);
    }));
    const rest = new RestClient({ baseUrl: s.baseUrl, retry: { retries: 2, initialDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 60_000, maxResponseBytes });
    // Warm-up (fetch's lazy loading is not what is measured): a small answer, rejected as invalid.
    await failure(rest.bbo(BBO));
    await s.waitClosed();
    s.requests = 0;
    measuring = true;
    base = peak = process.memoryUsage.rss();
    const e = await failure(rest.bbo(BBO));
    sample();
    await s.waitClosed(2);
    sample();
    return { e, s, growth: peak - base };
  }

  test(
    'a 500 MB body without Content-Length: ERR_RESPONSE_TOO_LARGE at the default limit, not retried, the server stops writing early',
    async () => {
      const { e, s, growth } = await hugeBody(undefined);
      expect(e).toBeInstanceOf(ResponseTooLargeError);
      expect(e.code).toBe('ERR_RESPONSE_TOO_LARGE');
      expect(e.context).toEqual({ operation: 'bbo', status: 200 });
      expect(e.message).toContain('bbo');
      expect(e.message).toContain('maxResponseBytes');
      expect(e.message).toContain(String(64 * MiB));
      expect(s.closedEarly).toBe(true);
      // The server wrote about the limit plus what the socket buffers held, far from the whole body.
      expect(s.written).toBeLessThan(150 * MiB);
      // Not retried: the same server would send the same body again.
      expect(s.requests).toBe(1);
      // The default limit bounds memory at a fraction of the body (about 2x the limit at most: text and chunks).
      expect(growth).toBeLessThan(250 * MiB);
    },
    60_000,
  );

  test(
    'RSS stays bounded by the limit, not the body: 500 MB sent, 8 MiB limit',
    async () => {
      const { e, s, growth } = await hugeBody(8 * MiB);
      expect(e.code).toBe('ERR_RESPONSE_TOO_LARGE');
      expect(s.closedEarly).toBe(true);
      expect(s.written).toBeLessThan(100 * MiB);
      expect(growth).toBeLessThan(150 * MiB);
    },
    60_000,
  );

  test(
    'a Content-Length over the limit fails before the body is read, and the connection is closed',
    async () => {
      server = await BodyServer.start((res, s) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * MiB) });
        // One chunk, then nothing: only the header can end this request quickly.
        s.written = 1024;
        res.write(Buffer.alloc(1024, 'x'));
      });
      const rest = new RestClient({ baseUrl: server.baseUrl, maxResponseBytes: MiB, retry: { retries: 0 }, timeoutMs: 20_000 });
      const e = await failure(rest.orderBook({ market_type: 'perp', market_id: 0, depth: 10 }));
      expect(e).toBeInstanceOf(ResponseTooLargeError);
      expect(e.code).toBe('ERR_RESPONSE_TOO_LARGE');
      expect(e.message).toContain('orderBook');
      expect(e.message).toContain(`Content-Length ${2 * MiB}`);
      expect(e.message).toContain(String(MiB));
      // Refused on its Content-Length: the server saw the connection closed before it sent the body.
      await server.waitClosed();
      expect(server.closedEarly).toBe(true);
    },
    60_000,
  );

  test('an answer within the limit is read whole, exactly at the limit included', async () => {
    const body = JSON.stringify({ data: { bid: null, ask: { price_ticks: '5', size_base_lots: '1' } }, timestamp_ns: '1732200000000000000', sequence: '7' });
    server = await BodyServer.start((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    const rest = new RestClient({ baseUrl: server.baseUrl, maxResponseBytes: Buffer.byteLength(body), retry: { retries: 0 } });
    await expect(rest.bbo(BBO)).resolves.toMatchObject({ sequence: '7' });
    const tight = new RestClient({ baseUrl: server.baseUrl, maxResponseBytes: Buffer.byteLength(body) - 1, retry: { retries: 0 } });
    await expect(tight.bbo(BBO)).rejects.toMatchObject({ code: 'ERR_RESPONSE_TOO_LARGE' });
  });
});

describe('fetchText: streamed reading', () => {
  /** An injected fetch whose body yields `chunks` one read at a time. */
  function chunkedFetch(chunks: Uint8Array[], headers: Record<string, string> = {}): { fetch: FetchLike; cancelled: () => boolean; reads: () => number } {
    let cancelled = false;
    let reads = 0;
    const fetch: FetchLike = async () => ({
      status: 200,
      text: () => Promise.reject(new Error('text() must not be used when a body stream exists')),
      headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
      body: {
        getReader: (): BodyReaderLike => {
          let i = 0;
          return {
            read: async () => {
              reads++;
              return i < chunks.length ? { done: false, value: chunks[i++]! } : { done: true };
            },
            cancel: async () => {
              cancelled = true;
            },
          };
        },
      },
    });
    return { fetch, cancelled: () => cancelled, reads: () => reads };
  }

  const options = (fetch: FetchLike, maxResponseBytes: number) => ({ fetch, timeoutMs: 5000, headers: {}, operation: 'bbo', maxResponseBytes });

  test('UTF-8 characters split across chunks are decoded whole', async () => {
    const text = '{"error":"é€😀 ünïcödé"}';
    const bytes = Buffer.from(text, 'utf8');
    // One byte per chunk: every multi-byte character is split.
    const chunks = [...bytes].map((b) => Uint8Array.of(b));
    const { fetch } = chunkedFetch(chunks);
    await expect(fetchText('http://x/v1/bbo', options(fetch, bytes.length))).resolves.toEqual({ status: 200, text });
  });

  test('past the limit the stream is cancelled and nothing more is read', async () => {
    const chunk = new Uint8Array(1000).fill(120);
    const chunks = Array.from({ length: 100 }, () => chunk);
    const probe = chunkedFetch(chunks);
    const e = await failure(fetchText('http://x/v1/bbo', options(probe.fetch, 2500)));
    expect(e).toBeInstanceOf(ResponseTooLargeError);
    expect(e.message).toContain('3000 bytes');
    expect(probe.reads()).toBe(3);
    expect(probe.cancelled()).toBe(true);
  });

  test('Content-Length is trusted only without a content coding', async () => {
    const body = new Uint8Array(10).fill(120);
    const declared = chunkedFetch([body], { 'content-length': '5000' });
    await expect(fetchText('http://x', options(declared.fetch, 100))).rejects.toMatchObject({ code: 'ERR_RESPONSE_TOO_LARGE' });
    expect(declared.reads()).toBe(0);
    const gzip = chunkedFetch([body], { 'content-length': '5000', 'content-encoding': 'gzip' });
    await expect(fetchText('http://x', options(gzip.fetch, 100))).resolves.toEqual({ status: 200, text: 'x'.repeat(10) });
  });

  test('a fetch without body streams: text() is used and its size checked after', async () => {
    const plain = (text: string): FetchLike => async () => ({ status: 200, text: async () => text });
    await expect(fetchText('http://x', options(plain('x'.repeat(100)), 100))).resolves.toEqual({ status: 200, text: 'x'.repeat(100) });
    await expect(fetchText('http://x', options(plain('x'.repeat(101)), 100))).rejects.toMatchObject({ code: 'ERR_RESPONSE_TOO_LARGE' });
    // 40 characters, 120 bytes.
    await expect(fetchText('http://x', options(plain('€'.repeat(40)), 100))).rejects.toMatchObject({ code: 'ERR_RESPONSE_TOO_LARGE' });
    await expect(fetchText('http://x', options(plain('€'.repeat(33)), 100))).resolves.toMatchObject({ status: 200 });
  });
});
