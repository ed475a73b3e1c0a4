/**
 * `ErrorCode` is the closed list of every code an `ExchangeReplicaError` can carry. These
 * checks read the sources and the README so that a new code or error class cannot be left out
 * of the union, the public exports or the README's error table (both ways).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lib from '../../src';
import * as simulator from '../../src/simulator';
import * as record from '../../src/record';
import { ERROR_CODES, LIBRARY_ERROR_CODES, isErrorCode } from '../../src/errors/ErrorCode';
import { FEED_ERROR_CODES } from '../../src/protocol/frames';
import { REST_ERROR_CODES } from '../../src/protocol/envelope';

const root = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

const sources = sourceFiles(join(root, 'src')).map((file) => ({ file: file.slice(root.length + 1), text: readFileSync(file, 'utf8') }));

/** Error classes that never leave the library: the simulator's REST failures (answered as HTTP bodies) and the CLI's usage errors (printed, exit code 2). */
const INTERNAL_CLASSES = new Set(['QueryError', 'CliUsageError']);

/** Whether an entry point (`.`, `./simulator`, `./record`) exports a class of that name. */
const exported = (name: string): boolean => [lib, simulator, record].some((entry) => typeof (entry as Record<string, unknown>)[name] === 'function');

it('every code given to an ExchangeReplicaError in src is in ErrorCode', () => {
  const found = new Map<string, string>();
  const pattern = /(?:\bsuper|new\s+[A-Za-z]*Error)\(\s*'([A-Z][A-Z0-9_]*)'/g;
  for (const { file, text } of sources) {
    for (const m of text.matchAll(pattern)) found.set(m[1]!, file);
  }
  // The pattern does find codes (a guard against it silently matching nothing).
  expect(found.get('ERR_INVALID_PARAMETER')).toBe('src/errors/index.ts');
  const missing = [...found].filter(([code]) => !isErrorCode(code)).map(([code, file]) => `${code} (${file})`);
  expect(missing).toEqual([]);
});

it('ErrorCode is the library codes plus the exchange codes, without duplicates', () => {
  expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  expect(LIBRARY_ERROR_CODES.every((c) => c.startsWith('ERR_'))).toBe(true);
  expect([...ERROR_CODES].sort()).toEqual([...LIBRARY_ERROR_CODES, ...REST_ERROR_CODES, ...FEED_ERROR_CODES].sort());
  expect(isErrorCode('ERR_NOT_A_CODE')).toBe(false);
});

it('every error class in src is exported by an entry point (or is on the internal list)', () => {
  const classes = new Set<string>();
  for (const { text } of sources) {
    for (const m of text.matchAll(/export class (\w+) extends (?:ExchangeReplicaError|\w+Error)\b/g)) classes.add(m[1]!);
  }
  const unexported = [...classes].filter((name) => !INTERNAL_CLASSES.has(name) && !exported(name));
  expect(unexported).toEqual([]);
});

it("the README's error table names every code of ErrorCode, and only those, with exported classes", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const table = readme.slice(readme.indexOf('## Errors'), readme.indexOf('\n## ', readme.indexOf('## Errors') + 1));
  const rows = table.split('\n').filter((line) => line.startsWith('| `'));
  expect(rows.length).toBeGreaterThan(10);
  const codes = new Set<string>();
  const classes = new Set<string>();
  for (const row of rows) {
    const [codeCell = '', classCell = ''] = row.split('|').slice(1);
    for (const m of codeCell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) codes.add(m[1]!);
    for (const m of classCell.matchAll(/`(\w+Error)`/g)) classes.add(m[1]!);
  }
  expect([...codes].filter((c) => !isErrorCode(c))).toEqual([]);
  expect(ERROR_CODES.filter((c) => !codes.has(c))).toEqual([]);
  expect([...classes].filter((name) => !exported(name))).toEqual([]);
});
