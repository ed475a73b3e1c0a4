/**
 * `@opentelemetry/api` stays optional: the library never imports it, the option is typed
 * structurally (the API's global `metrics` and an SDK `MeterProvider` fit it, checked by the
 * compiler here), the API's no-op meter (no SDK installed) is taken as no meter at all, and
 * a wrong value is refused when the client is built.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { Subject } from 'rxjs';
import { ExchangeClient, InvalidParameterError, systemClock, type ExchangeClientOptions, type ExchangeReplicaError } from '../../src';
import { ClientTelemetry, type MeterProviderLike } from '../../src/metrics';
import { startPair, waitFor, type Pair } from '../e2e/harness';

const ROOT = join(__dirname, '..', '..');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

it('the library never imports @opentelemetry/*: it is an optional peer dependency', () => {
  // Code lines only: the JSDoc examples show how an application imports it.
  const code = (f: string) => readFileSync(f, 'utf8').split('\n').filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l));
  const importing = filesUnder(join(ROOT, 'src')).filter((f) => /\.ts$/.test(f) && code(f).some((l) => /(\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]@opentelemetry\//.test(l)));
  expect(filesUnder(join(ROOT, 'src')).length).toBeGreaterThan(100);
  expect(importing).toEqual([]);
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
  expect(pkg.dependencies?.['@opentelemetry/api']).toBeUndefined();
  expect(pkg.peerDependencies?.['@opentelemetry/api']).toEqual(expect.any(String));
  expect(pkg.peerDependenciesMeta?.['@opentelemetry/api']).toEqual({ optional: true });
});

it('takes the API global and an SDK provider as they are (compile-time), and refuses what has no getMeter', () => {
  const global: MeterProviderLike = metrics;
  const sdk: MeterProviderLike = new MeterProvider();
  const options: ExchangeClientOptions[] = [{ restUrl: 'http://127.0.0.1:1', meterProvider: global }, { restUrl: 'http://127.0.0.1:1', meterProvider: sdk }];
  expect(options).toHaveLength(2);
  const bad = { restUrl: 'http://127.0.0.1:1', meterProvider: {} } as unknown as ExchangeClientOptions;
  expect(() => new ExchangeClient(bad)).toThrow(InvalidParameterError);
  expect(() => new ExchangeClient(bad)).toThrow(/'meterProvider'/);
});

describe('on the API without an SDK', () => {
  let pair: Pair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('takes the no-op meter of the global API as no meter: nothing made, nothing recorded', async () => {
    const sources = { clock: systemClock, errors$: new Subject<ExchangeReplicaError>(), connections: [] };
    expect(ClientTelemetry.start(metrics, sources)).toBeUndefined();
    expect(ClientTelemetry.start(new MeterProvider(), sources)).toBeInstanceOf(ClientTelemetry);
    pair = await startPair({ seed: 3, eventsPerSecond: 400 }, { meterProvider: metrics });
    // No frame listener beside the router's, as without a meterProvider.
    const plain = new ExchangeClient({ restUrl: pair.sim.restUrl });
    expect(pair.client.connection.listenerCount('message')).toBe(plain.connection.listenerCount('message'));
    await plain.close();
    const book = pair.client.orderBook({ market_type: 'perp', market_id: 0 });
    let applied = 0;
    const sub = book.subscribe((e) => {
      if (e.cause === 'update') applied++;
    });
    await waitFor(book, () => applied >= 10, '10 applied book updates');
    // The client's own metrics are unaffected.
    expect(pair.client.streamMetrics().find((m) => m.stream === 'book|market_id=0|is_perps=true')?.latency.count).toBeGreaterThanOrEqual(10);
    sub.unsubscribe();
  });
});
