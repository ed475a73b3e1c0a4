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
  // At least three workers, also on 2 cores: much of the suite waits (nats-server elections,
  // heartbeats, child processes, the soak's real time), and a third worker fills that time. On a
  // quiet 2-core machine: 225 s with three, 288 s with two (clean clones, the same commit).
  maxWorkers: Math.max(3, require('node:os').availableParallelism() - 1),
};
