/**
 * A real headless Chromium for the browser tests, driven by playwright-core.
 *
 * The binary comes from scripts/ensure-chromium.mjs (also run by `npm test`'s pretest): found,
 * or installed with apt-get when missing and allowed. Where the machine cannot have it,
 * `chromiumOrSkipReason` says why in one line and the browser tests skip with that line.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

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
  return chromium.launch({ executablePath: found.bin, args: [...CHROMIUM_FLAGS], timeout: 60_000 });
}

/**
 * `describe` when Chromium is there, else `describe.skip` after printing the reason once, so
 * a machine that cannot have a browser still runs everything else and says what it skipped.
 */
export function describeWithChromium(name: string, body: () => void): void {
  const found = chromiumOrSkipReason();
  if ('reason' in found) {
    process.stderr.write(`skipping "${name}": ${found.reason}\n`);
    describe.skip(name, body);
    return;
  }
  describe(name, body);
}
