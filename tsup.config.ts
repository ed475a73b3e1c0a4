import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateDtsBundle, type EntryPointConfig } from 'dts-bundle-generator';
import { defineConfig } from 'tsup';

/**
 * The library: four entry points (`.`, `./simulator`, `./nats`, `./record`), each as ESM and CJS, with one
 * self-contained declaration file per entry and format (`.d.ts` beside the ESM file, `.d.cts`
 * beside the CJS one).
 *
 * The CJS default export of bs58 (with base-x) does not survive interop: these two are
 * bundled, hence devDependencies (their MIT notices are in LICENSE), so `require('exchange-replica')` needs no require(esm) and works
 * under loaders that only load CommonJS (jest).
 *
 * Declarations are bundled by dts-bundle-generator, not by tsup's rollup-plugin-dts, which
 * turns `export * as protocol` into a namespace that loses every name that is both a type
 * and a value (the zod schemas) and every type-only name of a shared chunk.
 */
const DECLARATIONS: ReadonlyArray<{ out: string; config: EntryPointConfig }> = [
  {
    out: 'index',
    // The main entry must not need @types/node: no triple-slash reference to it.
    config: { filePath: 'src/index.ts', libraries: { allowedTypesLibraries: [] }, output: { noBanner: true, exportReferencedTypes: false } },
  },
  {
    out: 'simulator/index',
    // The simulator is a Node HTTP server: its types use node:http.
    config: { filePath: 'src/simulator/index.ts', libraries: { allowedTypesLibraries: ['node'] }, output: { noBanner: true, exportReferencedTypes: false } },
  },
  {
    out: 'nats/index',
    // The NATS relay (optional peers @nats-io/*, imported by name, never bundled).
    config: { filePath: 'src/nats/index.ts', libraries: { allowedTypesLibraries: ['node'], importedLibraries: ['@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv'] }, output: { noBanner: true, exportReferencedTypes: false } },
  },
  {
    out: 'record/index',
    // Recording and replay: files and gzip (Node).
    config: { filePath: 'src/record/index.ts', libraries: { allowedTypesLibraries: ['node'] }, output: { noBanner: true, exportReferencedTypes: false } },
  },
];

/** Output folder: `dist`, or `BUILD_OUT_DIR` (the package test builds into a temporary folder). */
const outDir = process.env.BUILD_OUT_DIR ?? 'dist';

/**
 * dts-bundle-generator keeps named imports of external modules but drops a namespace import
 * (`import * as z from 'zod/mini'`, the only form that lets a bundler keep zod/mini small),
 * while the declarations still name `z.ZodMini...`: put the import back where `z.` is used.
 */
const ZOD_NAMESPACE_IMPORT = "import * as z from 'zod/mini';\n";

function withZodImport(text: string): string {
  return /\bz\.[A-Za-z$]/.test(text) && !text.includes(ZOD_NAMESPACE_IMPORT) ? ZOD_NAMESPACE_IMPORT + text : text;
}

function writeDeclarations(): void {
  const bundles = generateDtsBundle(
    DECLARATIONS.map((d) => d.config),
    { preferredConfigPath: 'tsconfig.build.json' },
  );
  DECLARATIONS.forEach(({ out }, i) => {
    const file = join(outDir, out);
    mkdirSync(dirname(file), { recursive: true });
    for (const ext of ['.d.ts', '.d.cts']) writeFileSync(file + ext, withZodImport(bundles[i]!));
  });
}

export default defineConfig([
  {
    entry: { index: 'src/index.ts', 'simulator/index': 'src/simulator/index.ts', 'nats/index': 'src/nats/index.ts', 'record/index': 'src/record/index.ts' },
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
