/**
 * Deadlines of the tests. A deadline here only catches a hang: it never decides whether the
 * behaviour is right, so it sits far above what a loaded machine takes (2 cores at load 4-6
 * run a test 3-4 times slower than a quiet one). A test waits for events (a state reached, a
 * message stored, a process exited), never for a fixed time.
 *
 * Jest's own per-test timeout (testTimeout in jest.config.cjs, 120 s) is the hang guard of an
 * ordinary test; a wait inside a test gives up earlier (WAIT_MS) so that its failure names what
 * it waited for.
 */

/** A wait inside a test for an event: a state reached, a message arrived, a process ready. */
export const WAIT_MS = 60_000;

/** A child process that does a whole job (a build, an install, the quick benchmark): killed after this, as hung. */
export const PROCESS_HANG_MS = 8 * 60_000;

/** Jest timeout of a test or hook that waits for such processes: above PROCESS_HANG_MS, so the process's own failure (with its output) is what gets reported. */
export const PROCESS_TEST_TIMEOUT_MS = PROCESS_HANG_MS + 2 * 60_000;
