/** The one backoff shape: delays, jitter bounds, the retry budget, and option checks naming the field. */
import fc from 'fast-check';
import { Backoff, resolveBackoffOptions, type ResolvedBackoffOptions } from '../../src/clock';
import { InvalidParameterError } from '../../src/errors';

const DEFAULTS: ResolvedBackoffOptions = { initialDelayMs: 100, maxDelayMs: 2000, factor: 2, jitter: 0.5, retries: 3 };

it('grows by factor, caps at maxDelayMs, and stops after retries', () => {
  const b = new Backoff(resolveBackoffOptions({ jitter: 0 }, DEFAULTS, 'retry'));
  expect([b.next(), b.next(), b.next(), b.next()]).toEqual([100, 200, 400, undefined]);
  expect(b.exhausted).toBe(true);
  b.reset();
  expect(b.next()).toBe(100);
  expect(new Backoff(resolveBackoffOptions({ jitter: 0, retries: Infinity }, DEFAULTS, 'r')).delayFor(20)).toBe(2000);
});

it('every delay lies in [base * (1 - jitter), base], whatever the random draw', () => {
  fc.assert(
    fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 0.9999, noNaN: true }), fc.integer({ min: 0, max: 30 }), (jitter, r, retry) => {
      const b = new Backoff(resolveBackoffOptions({ jitter, retries: Infinity }, DEFAULTS, 'retry'), () => r);
      const base = Math.min(2000, 100 * 2 ** retry);
      const d = b.delayFor(retry);
      return d >= Math.floor(base * (1 - jitter)) && d <= base;
    }),
    { seed: 4242, numRuns: 300 },
  );
});

it.each([
  ['initialDelayMs', -1, /'connection\.reconnect\.initialDelayMs': expected a finite number >= 0, got -1/],
  ['factor', 0.5, /'connection\.reconnect\.factor': expected a finite number >= 1/],
  ['jitter', 1.5, /'connection\.reconnect\.jitter': expected a number from 0 to 1/],
  ['retries', 1.5, /'connection\.reconnect\.retries': expected an integer >= 0 or Infinity/],
  ['maxDelayMs', 50, /'connection\.reconnect\.maxDelayMs': 50 is below 'initialDelayMs' \(100\)/],
])('refuses %s = %p, naming the field', (name, value, message) => {
  const attempt = () => resolveBackoffOptions({ [name]: value }, DEFAULTS, 'connection.reconnect');
  expect(attempt).toThrow(InvalidParameterError);
  expect(attempt).toThrow(message);
});
