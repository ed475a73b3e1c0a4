import { defineConfig } from 'tsup';

// Dual ESM/CJS build. p-retry (and its dependency) are ESM-only, and bs58's CJS default
// export does not survive interop: both bundled so that
// `require('exchange-replica')` works without relying on require(esm).
export default defineConfig({
  entry: { index: 'src/index.ts', 'simulator/index': 'src/simulator/index.ts', 'cli/main': 'src/cli/main.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts', 'simulator/index': 'src/simulator/index.ts' } },
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  splitting: false,
  noExternal: ['p-retry', 'is-network-error', 'bs58', 'base-x'],
});
