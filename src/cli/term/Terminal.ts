/**
 * The terminal a view draws on: in-place redraws on the alternate screen when stdout is a
 * TTY, single keys (raw mode) when stdin is one, and a restore that always runs. Nothing
 * beyond ANSI escapes: no TUI library. @internal
 */
import { CSI, truncate } from './ansi';
import { guardBrokenPipe } from './brokenPipe';
import { safeLine } from './safeText';

/** Streams a Terminal uses (process.stdout / process.stdin by default). */
export interface TerminalStreams {
  readonly output: NodeJS.WriteStream;
  readonly input: NodeJS.ReadStream;
}

/** A key press: the character, or `ctrl-c`. */
export type Key = string;

export class Terminal {
  private entered = false;
  private rawSet = false;
  private keyListener: ((chunk: Buffer | string) => void) | undefined;
  private readonly onResizeListeners = new Set<() => void>();
  private readonly onClosedListeners = new Set<() => void>();
  /** The reader of stdout went away (EPIPE, e.g. `| head`): nothing more is written. */
  private outputClosed = false;
  private readonly outputError = (e: NodeJS.ErrnoException): void => {
    if (e.code !== 'EPIPE') throw e;
    this.outputClosed = true;
    for (const l of this.onClosedListeners) l();
  };
  private readonly resize = (): void => {
    for (const l of this.onResizeListeners) l();
  };

  constructor(private readonly streams: TerminalStreams = { output: process.stdout, input: process.stdin }) {
    // Permanent: a write still pending after close() may fail with EPIPE later.
    guardBrokenPipe(streams.output);
    streams.output.on('error', this.outputError);
  }

  /** Calls `cb` when the reader of the output went away (a closed pipe): time to stop. */
  onOutputClosed(cb: () => void): void {
    this.onClosedListeners.add(cb);
  }

  /** True when stdout is a terminal: draw in place; otherwise print lines. */
  get interactive(): boolean {
    return this.streams.output.isTTY === true;
  }

  /** @default 100 when unknown */
  get columns(): number {
    return this.streams.output.columns || 100;
  }

  /** @default 40 when unknown */
  get rows(): number {
    return this.streams.output.rows || 40;
  }

  /**
   * Whether keys should be read: always when drawing on a terminal; with plain output only
   * when stdin is not a terminal (piped keys), since a background job that reads its
   * terminal is stopped by SIGTTIN.
   */
  get readsKeys(): boolean {
    return this.interactive || this.streams.input.isTTY !== true;
  }

  /** Switches to the alternate screen and hides the cursor (interactive only). */
  enter(): void {
    if (this.entered || !this.interactive) return;
    this.entered = true;
    this.streams.output.write(CSI.altScreenOn + CSI.hideCursor + CSI.home + CSI.clearBelow);
    this.streams.output.on('resize', this.resize);
  }

  /** Calls `cb` after the terminal was resized. */
  onResize(cb: () => void): void {
    this.onResizeListeners.add(cb);
  }

  /**
   * Replaces the screen with `lines` (cut to the terminal's width and height). Every control
   * character in them but the colour sequences is made visible (see safeText.ts).
   */
  draw(lines: readonly string[]): void {
    if (this.outputClosed) return;
    const width = this.columns;
    const height = this.rows;
    let out = CSI.home;
    const shown = lines.length > height ? lines.slice(0, height) : lines;
    shown.forEach((line, i) => {
      out += truncate(safeLine(line), width) + CSI.clearLine + (i < shown.length - 1 ? '\r\n' : '');
    });
    this.streams.output.write(out + CSI.clearBelow);
  }

  /** Prints one line (non-interactive output), made safe as `draw` does. */
  println(line: string): void {
    if (!this.outputClosed) this.streams.output.write(`${safeLine(line)}\n`);
  }

  /**
   * Delivers single key presses: raw mode when stdin is a terminal (Ctrl-C arrives as the
   * key `ctrl-c`), else the characters of whatever is piped in (newlines ignored).
   */
  onKey(cb: (key: Key) => void): void {
    const input = this.streams.input;
    if (this.keyListener) return;
    if (input.isTTY && typeof input.setRawMode === 'function') {
      input.setRawMode(true);
      this.rawSet = true;
    }
    this.keyListener = (chunk) => {
      for (const ch of String(chunk)) {
        if (ch === '\x03') cb('ctrl-c');
        else if (ch !== '\n' && ch !== '\r') cb(ch);
      }
    };
    input.on('data', this.keyListener);
    input.resume();
  }

  /**
   * Restores everything `enter` and `onKey` changed. Idempotent; safe to call on any exit
   * path. The EPIPE guard stays: a write after the reader left must not crash the exit.
   */
  restore(): void {
    const { input, output } = this.streams;
    if (this.keyListener) {
      input.off('data', this.keyListener);
      this.keyListener = undefined;
      if (this.rawSet) input.setRawMode(false);
      this.rawSet = false;
      input.pause();
      // A piped stdin would otherwise keep the process alive.
      if (!input.isTTY) input.destroy();
    }
    if (this.entered) {
      this.entered = false;
      output.off('resize', this.resize);
      output.write(CSI.showCursor + CSI.altScreenOff);
    }
    this.onResizeListeners.clear();
    this.onClosedListeners.clear();
  }

  /**
   * Restores the terminal and stops reporting a closed output. Writes made before may still
   * be pending: their EPIPE stays harmless (see guardBrokenPipe).
   */
  close(): void {
    this.restore();
    this.streams.output.off('error', this.outputError);
  }
}
