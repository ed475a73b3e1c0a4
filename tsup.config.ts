import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { defineConfig } from 'tsup';
import ts from 'typescript';

/**
 * The library: four entry points (`.`, `./simulator`, `./nats`, `./record`), each as ESM and CJS.
 *
 * The CJS default export of bs58 (with base-x) does not survive interop: these two are
 * bundled, hence devDependencies (their MIT notices are in LICENSE), so `require('exchange-replica')` needs no require(esm) and works
 * under loaders that only load CommonJS (jest).
 *
 * Declarations: one per source module (`tsc --emitDeclarationOnly` over the four entries, here
 * through the compiler API), laid out under `dist/` as `src/` is (`dist/index.d.ts`,
 * `dist/client/ExchangeClient.d.ts`, ...), each written twice: `.d.ts` (ESM, relative imports
 * ending in `.js`) and `.d.cts` (CommonJS, ending in `.cjs`). Every entry imports the same
 * module for a shared class, as its JavaScript does (the chunks): `ExchangeClient` of
 * `exchange-replica` and the one `exchange-replica/record`'s `Replayer` configures are one
 * declaration, so values pass between entries. (A bundle per entry, as dts-bundle-generator and
 * rollup-plugin-dts make, gives each entry its own copy of every shared class, which TypeScript
 * refuses to mix when the class has a private member; dts-bundle-generator also dropped the
 * nats entry's imports of rxjs and eventemitter3.)
 *
 * The main entry's declarations need no `@types/node` (it runs in a browser): the build fails
 * if a module they reach names a Node type.
 */
const ENTRIES = { index: 'src/index.ts', 'simulator/index': 'src/simulator/index.ts', 'nats/index': 'src/nats/index.ts', 'record/index': 'src/record/index.ts' } as const;

/** Entries that are Node only: their declaration files reference `@types/node` whatever they use. */
const NODE_ENTRIES: ReadonlySet<string> = new Set(['simulator/index', 'nats/index', 'record/index']);

/** Output folder: `dist`, or `BUILD_OUT_DIR` (the package test builds into a temporary folder). */
const outDir = process.env.BUILD_OUT_DIR ?? 'dist';

const SRC = resolve('src');

/** Names in a declaration that only `@types/node` declares (globals), besides `node:` modules. */
const NODE_GLOBALS: ReadonlySet<string> = new Set(['Buffer', 'NodeJS', 'BufferEncoding']);

/**
 * Whether a declaration file needs `@types/node`: it imports a `node:` module or names one of
 * its globals (tokens, so a comment that says `Buffer` does not count).
 */
function usesNodeTypes(text: string, specifiers: readonly string[]): boolean {
  if (specifiers.some((s) => s.startsWith('node:'))) return true;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, /* skipTrivia */ true, ts.LanguageVariant.Standard, text);
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.Identifier && NODE_GLOBALS.has(scanner.getTokenValue())) return true;
  }
  return false;
}

interface Specifier {
  readonly start: number; // of the text inside the quotes
  readonly end: number;
  readonly text: string;
}

/** Every module specifier of a declaration file: imports, re-exports, `import("...")` types. */
function specifiersOf(fileName: string, text: string): Specifier[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Specifier[] = [];
  const add = (literal: ts.Node | undefined): void => {
    if (literal !== undefined && ts.isStringLiteral(literal)) found.push({ start: literal.getStart(source) + 1, end: literal.getEnd() - 1, text: literal.text });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    else if (ts.isExternalModuleReference(node)) add(node.expression);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The declaration of every module reachable from the entries, keyed by path under `src/`
 * without extension (`client/ExchangeClient`). Fails the build on any diagnostic.
 */
function emitDeclarations(): Map<string, string> {
  const parsed = ts.getParsedCommandLineOfConfigFile('tsconfig.build.json', {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error('tsconfig.build.json: not read');
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    declarationMap: false,
    sourceMap: false,
    incremental: false,
    composite: false,
    rootDir: SRC,
    outDir: SRC, // names only: nothing is written by the compiler
  };
  const program = ts.createProgram({ rootNames: Object.values(ENTRIES).map((e) => resolve(e)), options });
  const modules = new Map<string, string>();
  const result = program.emit(undefined, (fileName, text) => {
    const key = relative(SRC, fileName).split('\\').join('/').replace(/\.d\.ts$/, '');
    modules.set(key, text);
  }, undefined, /* emitOnlyDtsFiles */ true);
  const diagnostics = [...program.getOptionsDiagnostics(), ...program.getSyntacticDiagnostics(), ...result.diagnostics];
  if (diagnostics.length > 0 || result.emitSkipped) {
    const host: ts.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' };
    throw new Error(`declarations not emitted:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
  for (const key of Object.keys(ENTRIES)) if (!modules.has(key)) throw new Error(`no declaration emitted for the entry ${key}`);
  return modules;
}

/** The module (key) a relative specifier of module `from` names: `./x` is `x` or `x/index`. */
function resolveModule(modules: ReadonlyMap<string, string>, from: string, specifier: string): string {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  if (modules.has(target)) return target;
  if (modules.has(`${target}/index`)) return `${target}/index`;
  throw new Error(`declarations of src/${from}: '${specifier}' names no emitted module`);
}

/** A relative specifier made explicit, as Node resolves it: `./x` -> `./x.js` or `./x/index.js` (`.cjs` in a `.d.cts`). */
function explicitSpecifier(modules: ReadonlyMap<string, string>, from: string, specifier: string, ext: '.js' | '.cjs'): string {
  const path = posix.relative(posix.dirname(from), resolveModule(modules, from, specifier)) + ext;
  return path.startsWith('.') ? path : `./${path}`;
}

function writeDeclarations(): void {
  const modules = emitDeclarations();
  const specifiers = new Map([...modules].map(([key, text]) => [key, specifiersOf(`${key}.d.ts`, text)] as const));
  /** The modules whose declarations `from`'s reach (them included). */
  const reach = (from: readonly string[]): Set<string> => {
    const reached = new Set(from);
    for (const key of reached) {
      for (const s of specifiers.get(key)!) if (s.text.startsWith('.')) reached.add(resolveModule(modules, key, s.text));
    }
    return reached;
  };
  const needsNode = (key: string): boolean => usesNodeTypes(modules.get(key)!, specifiers.get(key)!.map((s) => s.text));
  const nodeInMain = [...reach(['index'])].filter(needsNode);
  if (nodeInMain.length > 0) throw new Error(`declarations of the main entry name Node types (it must need no @types/node): src/${nodeInMain.join('.ts, src/')}.ts`);
  // Only what the entries' declarations reach: the compiler emits a declaration for every
  // module the code imports (FeedConnection's names ws's types, which are not a dependency).
  for (const key of reach(Object.keys(ENTRIES))) {
    const text = modules.get(key)!;
    const own = specifiers.get(key)!;
    // TypeScript (5.5+) writes no `/// <reference types="node" />` by itself: without it a
    // program with `"types": []` cannot resolve `node:http`. At the very top: a directive after
    // an import is ignored.
    const reference = NODE_ENTRIES.has(key) || needsNode(key) ? '/// <reference types="node" />\n' : '';
    for (const ext of ['.js', '.cjs'] as const) {
      let out = reference;
      let at = 0;
      for (const s of own) {
        if (!s.text.startsWith('.')) continue;
        out += text.slice(at, s.start) + explicitSpecifier(modules, key, s.text, ext);
        at = s.end;
      }
      out += text.slice(at);
      const file = join(outDir, key + (ext === '.js' ? '.d.ts' : '.d.cts'));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, out);
    }
  }
}

export default defineConfig([
  {
    entry: ENTRIES,
    format: ['esm', 'cjs'],
    target: 'node20',
    platform: 'node',
    outDir,
    sourcemap: true,
    clean: ['!cli/**'],
    // One copy of the shared code (ExchangeReplicaError above all) for both entries: `instanceof`
    // holds across `exchange-replica` and `exchange-replica/simulator` (ESM and CJS chunks).
    splitting: true,
    noExternal: ['bs58', 'base-x'],
    onSuccess: async () => writeDeclarations(),
  },
  {
    // The CLI (bin/exchange-replica.js imports it): ESM only, no source map.
    entry: { main: 'src/cli/main.ts' },
    outDir: join(outDir, 'cli'),
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    clean: true,
    splitting: false,
    noExternal: ['bs58', 'base-x'],
  },
]);
