/**
 * Child-process entry of the bytes-per-level measurement: one book implementation in a
 * fresh process (no garbage of earlier work, single-threaded GC so every freed buffer is
 * gone when a reading is taken). Prints one JSON line: `{"bytesPerLevel": n}`.
 *
 *   node --expose-gc --single-threaded-gc --import tsx memoryProbe.ts <ours|ccxt|orderbooks> <levelsPerSide> <books> <seed>
 */
import { ccxtAdapter, loadCcxtOrderBook, orderbooksAdapter, oursAdapter, type CheckedFactory } from './adapters';
import { makeDeltaStream } from './deltaStream';
import { settle } from '../lib/gc';

export const PROBE_BOOKS = ['ours', 'ccxt', 'orderbooks'] as const;
export type ProbeBook = (typeof PROBE_BOOKS)[number];

async function factoryOf(name: ProbeBook): Promise<CheckedFactory> {
  if (name === 'ours') return oursAdapter;
  if (name === 'ccxt') return ccxtAdapter(await loadCcxtOrderBook());
  return orderbooksAdapter;
}

async function main(): Promise<void> {
  const [name, levels, books, seed] = process.argv.slice(2);
  if (!PROBE_BOOKS.includes(name as ProbeBook)) throw new Error(`unknown book ${name}; expected one of ${PROBE_BOOKS.join(', ')}`);
  const factory = await factoryOf(name as ProbeBook);
  const levelsPerSide = Number(levels);
  const count = Number(books);
  const { snapshot } = makeDeltaStream({ levels: levelsPerSide, frames: 0, seed: Number(seed), focus: 'top' });
  const before = settle();
  // Adapters are created after the first reading: one may hold an empty book until `load`.
  const adapters = Array.from({ length: count }, () => factory());
  for (const a of adapters) a.load(snapshot);
  const after = settle();
  if (adapters.some((a) => a.exactTop(1).bids.length === 0)) throw new Error(`${name}: empty book after load`);
  process.stdout.write(JSON.stringify({ name: adapters[0]!.name, bytesPerLevel: (after - before) / (count * 2 * levelsPerSide) }) + '\n');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
