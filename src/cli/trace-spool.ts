/**
 * A run's trace written out as it is made (`run --json`, `--trace-out`), so that the run
 * holds none of it: an hour of the benchmark's workload is 2 million entries, over a
 * gigabyte held and more than the longest string JavaScript can build once printed. The text
 * goes to a file (in the system's temporary directory, or beside the `--trace-out` target so
 * it can be renamed into place) and is read back in pieces at the end.
 */
import { closeSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { isSpecialFile } from './output-file.js';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const FLUSH_CHARS = 1 << 20;
const READ_BYTES = 1 << 22;

let serial = 0;

export class TraceSpool {
  readonly path: string;
  private fd: number | null;
  private pending: string[] = [];
  private pendingChars = 0;
  /** Pieces added. */
  count = 0;
  /** Why writing failed (the error's code), or null: after a failure nothing more is written. */
  failed: string | null = null;

  /** A spool in `dir` (default the system's temporary directory). */
  constructor(dir: string = tmpdir()) {
    this.path = join(dir, `.tierscope-trace-${process.pid}-${serial++}.tmp`);
    this.fd = openSync(this.path, 'w');
  }

  add(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    this.count++;
    if (this.pendingChars >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    if (this.fd === null || this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingChars = 0;
    if (this.failed !== null) return;
    try {
      writeSync(this.fd, text);
    } catch (e) {
      this.failed = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    }
  }

  /**
   * Calls `out` with the text in pieces that each end where a line ends (the newline left out),
   * and removes the file. After each piece it waits for `drained` (the output's reader has
   * taken what was written), so a pipe read slowly never makes the text pile up in memory.
   */
  async drainLines(out: (s: string) => void, drained: () => Promise<void> = async () => {}): Promise<void> {
    this.flush();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    const fd = openSync(this.path, 'r');
    try {
      const buf = Buffer.alloc(READ_BYTES);
      // The bytes after the last newline read so far (a piece may end inside a UTF-8 sequence).
      let carry = Buffer.alloc(0);
      for (;;) {
        const n = readSync(fd, buf, 0, READ_BYTES, null);
        if (n === 0) break;
        const end = buf.lastIndexOf(10, n - 1);
        if (end < 0) {
          carry = Buffer.concat([carry, buf.subarray(0, n)]);
          continue;
        }
        out(Buffer.concat([carry, buf.subarray(0, end)]).toString('utf8'));
        carry = Buffer.from(buf.subarray(end + 1, n));
        await drained();
      }
      out(carry.toString('utf8'));
    } finally {
      closeSync(fd);
      this.dispose();
    }
  }

  /**
   * Moves the text to `target` (a spool made beside it), whole or not at all; a device or
   * pipe is written to as it is. Why it could not, as a phrase, or null.
   */
  moveTo(target: string): string | null {
    this.flush();
    if (this.failed !== null) {
      this.dispose();
      return `${target} could not be written (${this.failed})`;
    }
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    const abs = resolve(target);
    const special = isSpecialFile(abs);
    try {
      if (!special) {
        renameSync(this.path, abs);
        return null;
      }
      const out = openSync(abs, 'w');
      const from = openSync(this.path, 'r');
      try {
        const buf = Buffer.alloc(READ_BYTES);
        for (let n = readSync(from, buf, 0, READ_BYTES, null); n > 0; n = readSync(from, buf, 0, READ_BYTES, null)) writeSync(out, buf, 0, n);
      } finally {
        closeSync(from);
        closeSync(out);
        this.dispose();
      }
      return null;
    } catch (e) {
      this.dispose();
      return `${target} could not be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
  }

  /** Removes the file (nothing is written after). */
  dispose(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }
}

/** A spool beside `target`, so that it can be renamed into place. */
export function spoolBeside(target: string): TraceSpool {
  return new TraceSpool(dirname(resolve(target)));
}
