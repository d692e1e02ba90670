/**
 * Files the CLI writes (`run --trace-out`, `report --out`): checked before the run, so a
 * path that cannot be written is found in a moment rather than after a long run, and
 * written whole or not at all (to a temporary name beside it, renamed into place), so a
 * full disk never leaves a file that looks complete.
 */
import { accessSync, constants, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { writeFileWhole } from '../write-whole.js';

/** Why `path` cannot be written, as a phrase after the flag (`... is a directory`), or null. */
export function checkOutputPath(path: string): string | null {
  const abs = resolve(path);
  try {
    const st = statSync(abs);
    if (st.isDirectory()) return `${path} is a directory`;
    accessSync(abs, constants.W_OK);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return `${path} cannot be written (${code ?? 'error'})`;
  }
  const dir = dirname(abs);
  try {
    if (!statSync(dir).isDirectory()) return `${path}: ${dirname(path)} is not a directory`;
    accessSync(dir, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${path}: no directory ${dirname(path)}` : `${path}: ${dirname(path)} cannot be written (${code ?? 'error'})`;
  }
  // Root passes access checks a read-only file system still refuses: try it.
  const probe = `${abs}.tierscope-probe-${process.pid}`;
  try {
    writeFileSync(probe, '');
  } catch (e) {
    return `${path} cannot be written (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  rmSync(probe, { force: true });
  return null;
}

/** Where `path` lands once links are followed (an absent file: its folder's real path and its name). */
function realPath(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return join(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

/**
 * The input an output path would write over, or null: the same file after symbolic links are
 * followed, or another name of it (a hard link: same device and inode). A special file
 * (/dev/stdout) is never an input's name.
 */
export function inputNamedBy(out: string, inputs: readonly string[]): string | null {
  const outAbs = resolve(out);
  if (isSpecialFile(outAbs)) return null;
  const outReal = realPath(out);
  let outStat: { dev: number; ino: number } | null = null;
  try {
    outStat = statSync(outAbs);
  } catch {
    outStat = null;
  }
  for (const input of inputs) {
    if (realPath(input) === outReal) return input;
    if (outStat !== null) {
      try {
        const st = statSync(resolve(input));
        if (st.dev === outStat.dev && st.ino === outStat.ino) return input;
      } catch {
        // an input that is not there is read by no one
      }
    }
  }
  return null;
}

/** An existing path that is not a regular file (a device, a pipe: /dev/stdout, a FIFO): written to in place, never replaced. */
export function isSpecialFile(abs: string): boolean {
  try {
    return !statSync(abs).isFile();
  } catch {
    return false;
  }
}

/** Writes `text` to `path` whole or not at all; why it could not, as a phrase, or null. */
export function writeWhole(path: string, text: string | Uint8Array): string | null {
  const abs = resolve(path);
  if (isSpecialFile(abs)) {
    // A device or a pipe (/dev/stdout, a FIFO): written to as it is, never replaced.
    try {
      writeFileSync(abs, text);
      return null;
    } catch (e) {
      return `${path} could not be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
  }
  try {
    writeFileWhole(abs, text, `.partial-${process.pid}`);
    return null;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return `${path} could not be written (${code ?? (e as Error).message}); nothing was left there`;
  }
}

/**
 * Why a generated file (`whatif --out`, `import --out`) may not be written at `path`, or
 * null. Beside the rules of every output file, an existing regular file is written over only
 * when the same command wrote it (its first line starts with `marker`): a scenario of the
 * user's, or any other file, is never replaced.
 */
export function generatedOutProblem(path: string, marker: string, command: string): string | null {
  const bad = checkOutputPath(path);
  if (bad !== null) return bad;
  const abs = resolve(path);
  if (isSpecialFile(abs)) return null;
  let first: string;
  try {
    first = readFileSync(abs, 'utf8').slice(0, 200).split('\n', 1)[0];
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? null : `${path} cannot be read to check who wrote it (${code ?? 'error'})`;
  }
  if (first.startsWith(marker)) return null;
  return `${path} exists and was not written by ${command} (its first line is not "${marker}..."): give a new file name, or remove it first`;
}
