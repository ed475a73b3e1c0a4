/**
 * Jest: TypeScript goes through SWC to CommonJS (dependencies are loaded as published).
 *
 * testTimeout is a hang guard, not a speed limit: a loaded machine (2 cores at load 4-6) runs
 * a test 3-4 times slower, and no test may fail for that. Tests wait for events with deadlines
 * that only catch hangs (test/helpers/deadlines.ts); the few that run whole processes (the
 * package test, the benchmark smoke tests) set a longer one of their own.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  testTimeout: 120_000,
  // Two workers, not more: the longest files start first and most of them start processes of
  // their own (nats-server clusters, consumer children, tsc, the benchmark's forks); a third
  // worker ran three of them at once and took a 2-core machine to a load average near 60.
  maxWorkers: 2,
};
