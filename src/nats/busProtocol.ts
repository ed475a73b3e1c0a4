/**
 * The bus's wire under its former module name: everything is in `./wire` (one file per
 * format); this re-export keeps the imports of the tests and benchmarks working.
 */
export * from './wire';
