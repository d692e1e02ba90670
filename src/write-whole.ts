/**
 * A file written whole or not at all: to `<path><suffix>` first, then renamed into place, so a
 * write cut short (a full disk) leaves no file that looks complete. Used by the directory
 * store for its objects and by the CLI for `--trace-out` and `--out`.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';

/** Writes `data` to `path` through a temporary `path + suffix`; on failure removes it and throws the error. */
export function writeFileWhole(path: string, data: string | Uint8Array, suffix: string): void {
  const partial = path + suffix;
  try {
    writeFileSync(partial, data);
    renameSync(partial, path);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
}
