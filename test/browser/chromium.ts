/**
 * A real headless Chromium for the browser tests, driven by playwright-core.
 *
 * The binary comes from scripts/ensure-chromium.mjs (also run by `npm test`'s pretest): found,
 * or installed with apt-get when missing and allowed. Where the machine cannot have it,
 * `chromiumOrSkipReason` says why in one line, with the command that installs it. With CI set
 * (CI services set it; so does .ci/run) the browser tests then FAIL with that line; elsewhere
 * they skip, after a console.warn with that line.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { WAIT_MS } from '../helpers/deadlines';

const ENSURE_SCRIPT = resolve(__dirname, '../../scripts/ensure-chromium.mjs');

/** Flags for a quiet, reproducible headless run (no sandbox: tests run as root in CI). */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let found: { bin: string } | { reason: string } | undefined;

/** The Chromium binary, or the one line that says why this machine has none. */
export function chromiumOrSkipReason(): { bin: string } | { reason: string } {
  if (found !== undefined) return found;
  try {
    found = { bin: execFileSync(process.execPath, [ENSURE_SCRIPT, '--print-path'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 }).trim() };
  } catch (e) {
    const line = String((e as { stderr?: unknown }).stderr ?? '').trim().split('\n').pop();
    found = { reason: line || `scripts/ensure-chromium.mjs failed: ${(e as Error).message}` };
  }
  return found;
}

/**
 * Launches headless Chromium with a fresh profile (playwright gives every launch its own
 * temporary user-data-dir and removes it on close).
 * @throws Error when this machine has no Chromium (check `chromiumOrSkipReason` first).
 */
export async function launchChromium(): Promise<Browser> {
  const found = chromiumOrSkipReason();
  if ('reason' in found) throw new Error(found.reason);
  return chromium.launch({ executablePath: found.bin, args: [...CHROMIUM_FLAGS], timeout: WAIT_MS });
}

/** CI is set (to anything but "" / "0" / "false"): tests that need Chromium must have it. */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = (env.CI ?? '').trim().toLowerCase();
  return ci !== '' && ci !== '0' && ci !== 'false';
}

let warned = false;

/**
 * `describe` when Chromium is there. Else, with CI set, a `describe` whose one test fails with
 * the reason (a CI run must not pass without its browser tests); elsewhere `describe.skip`
 * after a console.warn (once per test file) naming what was skipped and how to install Chromium,
 * so a machine that cannot have a browser still runs everything else and says what it skipped.
 */
export function describeWithChromium(name: string, body: () => void): void {
  const found = chromiumOrSkipReason();
  if (!('reason' in found)) {
    describe(name, body);
    return;
  }
  if (inCi()) {
    describe(name, () => {
      test('has Chromium (CI is set: the browser tests cannot be skipped)', () => {
        throw new Error(`no Chromium for the browser tests: ${found.reason}`);
      });
    });
    return;
  }
  if (!warned) {
    warned = true;
    console.warn(`SKIPPED (no Chromium): "${name}". ${found.reason}. Then run the tests again (with CI set, these tests fail instead).`);
  }
  describe.skip(name, body);
}
