/**
 * Client frames: what the client writes (`writeClientFrame`) the server reads back unchanged
 * (`parseClientFrame`), and a malformed frame is refused with the error code and message the
 * server answers with, naming the key at fault.
 */
import fc from 'fast-check';
import {
  CHANNEL_NAMES,
  CHANNELS,
  ClientFrame,
  encodeBase58,
  FEED_ERROR_CODES,
  parseClientFrame,
  RESOLUTIONS,
  SCOPE_KEYS,
  subscribeScope,
  writeClientFrame,
  type ClientFrameError,
  type FeedErrorCode,
  type SubscribeFrame,
} from '../../src/protocol';

const SEED = 20250612;
const INT32_MAX = 2 ** 31 - 1;

// ---- generators ------------------------------------------------------------

const requestId = fc.oneof(fc.nat().map(String), fc.string({ unit: 'binary', maxLength: 10 }));
const address = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(encodeBase58);
const scopeValue = {
  market_id: fc.oneof(fc.constantFrom(0, INT32_MAX), fc.nat({ max: INT32_MAX })),
  is_perps: fc.boolean(),
  interval: fc.constantFrom(...RESOLUTIONS),
  address,
  subaccount_id: fc.oneof(fc.constantFrom(0, INT32_MAX), fc.nat({ max: INT32_MAX })),
} as const;

/** A valid subscribe frame of any channel: exactly the channel's scope keys, valid values. */
const subscribeFrame: fc.Arbitrary<SubscribeFrame> = fc.constantFrom(...CHANNEL_NAMES).chain((channel) =>
  fc
    .record({ request_id: requestId, ...Object.fromEntries(CHANNELS[channel].scopeKeys.map((k) => [k, scopeValue[k]])) })
    .map((r) => ({ type: 'subscribe', channel, ...r }) as SubscribeFrame),
);
const clientFrame: fc.Arbitrary<ClientFrame> = fc.oneof(
  { weight: 3, arbitrary: subscribeFrame },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('unsubscribe' as const), request_id: requestId, subscription_id: fc.string({ unit: 'binary', maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('ping' as const), request_id: requestId }) },
);

const refused = (code: FeedErrorCode, message: string, key: string | null, requestId = ''): ClientFrameError => ({ code, message, key, requestId, subscriptionId: null });

// ---- tests ---------------------------------------------------------------------

describe('client frames', () => {
  it('reads back every frame the client writes, keys in the documented order', () => {
    fc.assert(
      fc.property(clientFrame, (frame) => {
        const text = writeClientFrame(frame);
        expect(parseClientFrame(text)).toEqual({ ok: true, frame });
        expect(ClientFrame.parse(JSON.parse(text))).toEqual(frame);
        const keys = Object.keys(JSON.parse(text) as object);
        if (frame.type === 'subscribe') {
          expect(keys).toEqual(['type', 'request_id', 'channel', ...SCOPE_KEYS.filter((k) => frame[k] !== undefined)]);
          expect(subscribeScope(frame)).toEqual(Object.fromEntries(CHANNELS[frame.channel].scopeKeys.map((k) => [k, frame[k]])));
        } else {
          expect(keys).toEqual(frame.type === 'ping' ? ['type', 'request_id'] : ['type', 'request_id', 'subscription_id']);
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('never throws; every refusal carries a feed error code and a message', () => {
    const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), fc.json(), clientFrame.map(writeClientFrame).map((t) => t.replace(/"[a-z_]+":/, '"x":')));
    fc.assert(
      fc.property(text, (t) => {
        const r = parseClientFrame(t);
        if (r.ok) expect(parseClientFrame(writeClientFrame(r.frame))).toEqual(r);
        else {
          expect(FEED_ERROR_CODES).toContain(r.error.code);
          expect(r.error.message.length).toBeGreaterThan(0);
        }
      }),
      { seed: SEED + 1, numRuns: 500 },
    );
  });

  it('ignores unknown keys of ping and unsubscribe frames', () => {
    expect(parseClientFrame('{"type":"ping","request_id":"p","extra":[1]}')).toEqual({ ok: true, frame: { type: 'ping', request_id: 'p' } });
    expect(parseClientFrame('{"type":"unsubscribe","request_id":"u","subscription_id":"3","x":null}')).toEqual({ ok: true, frame: { type: 'unsubscribe', request_id: 'u', subscription_id: '3' } });
  });

  const TYPES = 'expected one of: subscribe, unsubscribe, ping';
  const ALL_SCOPE_KEYS = 'scope keys: market_id, is_perps, interval, address, subaccount_id';
  const sub = (rest: string) => `{"type":"subscribe","request_id":"s",${rest}}`;
  const cases: [string, string, ClientFrameError][] = [
    ['not JSON', '{"type":', refused('INVALID_MESSAGE', 'the frame is not valid JSON', null)],
    ['not an object', '[{"type":"ping","request_id":"1"}]', refused('INVALID_MESSAGE', 'the frame is not a JSON object', null)],
    ['null', 'null', refused('INVALID_MESSAGE', 'the frame is not a JSON object', null)],
    ['no request_id', '{"type":"ping"}', refused('INVALID_MESSAGE', 'the frame has no string request_id', 'request_id')],
    ['a numeric request_id', '{"type":"ping","request_id":1}', refused('INVALID_MESSAGE', 'the frame has no string request_id', 'request_id')],
    ['an unknown type', '{"type":"pong","request_id":"r"}', refused('INVALID_MESSAGE', `unknown frame type "pong" (${TYPES})`, 'type', 'r')],
    ['no type', '{"request_id":"r"}', refused('INVALID_MESSAGE', `unknown frame type undefined (${TYPES})`, 'type', 'r')],
    ['an unsubscribe without subscription_id', '{"type":"unsubscribe","request_id":"u"}', refused('INVALID_MESSAGE', 'an unsubscribe frame needs a string subscription_id', 'subscription_id', 'u')],
    ['a numeric subscription_id', '{"type":"unsubscribe","request_id":"u","subscription_id":3}', refused('INVALID_MESSAGE', 'an unsubscribe frame needs a string subscription_id', 'subscription_id', 'u')],
    ['a subscribe without channel', sub('"market_id":0'), refused('INVALID_MESSAGE', 'a subscribe frame needs a string channel', 'channel', 's')],
    ['a numeric channel', sub('"channel":1,"extra":1'), refused('INVALID_MESSAGE', 'a subscribe frame needs a string channel', 'channel', 's')],
    ['an unknown channel', sub('"channel":"nope","extra":1'), refused('UNKNOWN_CHANNEL', 'unknown channel "nope"', 'channel', 's')],
    ['a key that is no scope key', sub('"channel":"bbo","market_id":-1,"depth":5'), refused('INVALID_SUBSCRIPTION', `depth is not a scope key (${ALL_SCOPE_KEYS})`, 'depth', 's')],
    ['a __proto__ key', sub('"channel":"bbo","market_id":0,"is_perps":true,"__proto__":{}'), refused('INVALID_SUBSCRIPTION', `__proto__ is not a scope key (${ALL_SCOPE_KEYS})`, '__proto__', 's')],
    ['a missing scope key', sub('"channel":"bbo","market_id":0'), refused('INVALID_SUBSCRIPTION', 'is_perps is required for channel bbo (scope keys: market_id, is_perps)', 'is_perps', 's')],
    ['a scope key of another channel', sub('"channel":"fundingRates","market_id":0,"is_perps":true'), refused('INVALID_SUBSCRIPTION', 'is_perps is not a scope key of channel fundingRates (scope keys: market_id)', 'is_perps', 's')],
    ['a negative market_id', sub('"channel":"book","market_id":-1,"is_perps":true'), refused('INVALID_SUBSCRIPTION', 'market_id is invalid for channel book: got -1', 'market_id', 's')],
    ['a fractional subaccount_id', sub(`"channel":"fills","address":"${encodeBase58(new Uint8Array(32))}","subaccount_id":0.5`), refused('INVALID_SUBSCRIPTION', 'subaccount_id is invalid for channel fills: got 0.5', 'subaccount_id', 's')],
    ['an unknown interval', sub('"channel":"candles","market_id":0,"is_perps":false,"interval":"7m"'), refused('INVALID_SUBSCRIPTION', 'interval is invalid for channel candles: got "7m"', 'interval', 's')],
    ['a bad address', sub('"channel":"account","address":"0xabc","subaccount_id":0'), refused('INVALID_SUBSCRIPTION', 'address is invalid for channel account: got "0xabc"', 'address', 's')],
    ['an invalid value of a key the channel does not take', sub('"channel":"bbo","market_id":0,"is_perps":true,"interval":5'), refused('INVALID_SUBSCRIPTION', 'interval is not a scope key of channel bbo (scope keys: market_id, is_perps)', 'interval', 's')],
  ];

  it.each(cases)('refuses %s, naming what was wrong', (_what, text, error) => {
    expect(parseClientFrame(text)).toEqual({ ok: false, error });
  });
});
