/** Jest: TypeScript and ESM-only dependencies (p-retry, is-network-error) go through SWC to CommonJS. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(p-retry|is-network-error)/)'],
  testTimeout: 30000,
  maxWorkers: 2,
};
