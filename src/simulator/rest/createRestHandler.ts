/**
 * The simulator's REST server as a Node request handler: routes the path through the
 * operations table, checks parameters with the protocol's own `parseQueryParams` (400
 * INVALID_PARAMETER naming the parameter), consults the fault hook (an injected 500
 * INTERNAL_ERROR, or a delay), then answers from `engine.query`. Unknown paths are 404
 * NOT_FOUND; methods other than GET are 405. Every body is JSON.
 *
 * Pages of any origin may call it (a browser client against the simulator): every answer
 * carries `Access-Control-Allow-Origin: *`, and a CORS preflight (OPTIONS) is answered 204
 * allowing GET with whatever request headers it asks for (the client's `accept`, and the
 * credentials headers a deployment adds with the REST option `headers`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageOf } from '../../errors/messageOf';
import { OPERATIONS, parseQueryParams } from '../../protocol';
import type { RestFaultHook } from '../RestFaultHook';
import type { Engine } from '../engine/Engine';
import { routeRequest } from './routeRequest';

/** On every answer: any origin may read it (no cookies are involved, hence `*`). */
const CORS_HEADERS = { 'access-control-allow-origin': '*' } as const;
/** How long a browser may cache a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...CORS_HEADERS, ...headers });
  res.end(text);
}

/**
 * A CORS preflight: GET allowed, with the headers asked for echoed (the `*` wildcard would not
 * cover `Authorization`), on any path (the GET that follows gets its own 404 if need be).
 */
function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  const asked = req.headers['access-control-request-headers'];
  res.writeHead(204, {
    ...CORS_HEADERS,
    'access-control-allow-methods': 'GET',
    ...(asked ? { 'access-control-allow-headers': asked } : {}),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_S),
    vary: 'Access-Control-Request-Headers',
    'content-length': '0',
  });
  res.end();
}

/**
 * Creates the handler.
 * @param engine the exchange whose state is served.
 * @param hook asked before each routed, well-formed request whether to fail it or delay it.
 * @example
 * const server = http.createServer(createRestHandler(new Engine({ seed: 1 })));
 * server.listen(0, '127.0.0.1');
 */
export function createRestHandler(engine: Engine, hook?: RestFaultHook): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      answerPreflight(req, res);
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://simulator.invalid');
    } catch {
      send(res, 400, { code: 'INVALID_PARAMETER', error: `malformed request target ${JSON.stringify(req.url)}` });
      return;
    }
    const route = routeRequest(url.pathname);
    if (!route) {
      send(res, 404, { code: 'NOT_FOUND', error: `no operation at path ${url.pathname}` });
      return;
    }
    if (req.method !== 'GET') {
      send(res, 405, { code: 'METHOD_NOT_ALLOWED', error: `method ${req.method} is not allowed: every operation is a GET` }, { allow: 'GET' });
      return;
    }
    if ('badParam' in route) {
      send(res, 400, { code: 'INVALID_PARAMETER', error: `invalid parameter '${route.badParam}': malformed percent-encoding in the path` });
      return;
    }
    const op = OPERATIONS[route.name];
    const parsed = parseQueryParams(op.params, op.rules, url.searchParams, route.pathValues);
    if (!parsed.ok) {
      send(res, 400, { code: 'INVALID_PARAMETER', error: parsed.issue.message });
      return;
    }
    let fail = false;
    let delayMs = 0;
    try {
      const decision = hook?.beforeRequest(route.name) ?? {};
      fail = decision.fail500 === true;
      delayMs = Math.max(0, decision.delayMs ?? 0);
    } catch (e) {
      send(res, 500, { code: 'INTERNAL_ERROR', error: `fault hook failed: ${messageOf(e)}` });
      return;
    }
    const answer = (): void => {
      if (fail) {
        send(res, 500, { code: 'INTERNAL_ERROR', error: `internal error serving ${op.path} (injected fault); safe to retry with backoff` });
        return;
      }
      // Served when the (possibly delayed) answer leaves, so it shows the state of that moment.
      const { status, body } = engine.query(route.name, parsed.value);
      send(res, status, body);
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  };
}
