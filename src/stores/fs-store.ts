/**
 * An object store in a local directory (`--store fs --dir PATH`), laid out as a tiered
 * storage plugin would write it: `<dir>/<store>/<topic>-<partition>/<base offset>-<id>.<ext>`.
 * Segment `.log` files hold Kafka RecordBatch v2 batches and `.index` files Kafka's offset
 * index (relative offset int32, position int32 per batch); the leader-epoch checkpoint is
 * Kafka's text format, and the producer snapshot is Kafka's binary snapshot file.
 *
 * Synchronous, like the in-memory store, so a run on it is the same run: reads decode the
 * files back into exactly what was written, and sizes are the model's.
 *
 * The directory is the store's only when it says so: a new or empty directory gets a
 * marker file (`.tierscope-store`), and a later run clears only the `tiered/` and `wal/`
 * folders of a directory that has it. A non-empty directory without it is refused
 * (`FsStoreRefused`): nothing the run did not create is ever deleted. Each object is written
 * to a temporary name and renamed into place, so a write cut short (a full disk) leaves no
 * file that looks complete. A failing file system (full, read-only, a name too long) does
 * not crash the run: the request fails and `failures` keeps the cause (src/stores/failure.ts).
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type ObjectStoreBackend, type ObjectStoreRequest, type ObjectStoreResult, type StoreName, type StoredObject } from '../../core/ports/object-store.js';
import { writeFileWhole } from '../write-whole.js';
import { StoreFailures } from './failure.js';
import { type StoreStats, decodeObject, emptyStats, encodeObject, fileRange, readResult } from './kafka-objects.js';

/** The file that marks a directory as a TierScope store. */
export const STORE_MARKER = '.tierscope-store';
/** Suffix of an object being written (renamed into place once complete; never listed). */
const PARTIAL = '.partial';

/** The directory cannot be used as a store, for a reason the user can fix (exit 2). */
export class FsStoreRefused extends Error {}

/** The file system refused (errno codes that are the machine's state, not a bug of ours). */
const FS_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENAMETOOLONG', 'EIO', 'EMFILE', 'ENFILE', 'ENOTDIR', 'EISDIR', 'EEXIST', 'ENOTEMPTY', 'EBUSY', 'ELOOP', 'EFBIG']);

export function fsFailureCode(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && FS_FAILURES.has(code) ? code : null;
}

export class FsObjectStore implements ObjectStoreBackend {
  readonly dir: string;
  /** What was read and written for real (the model's figures are in the run's JSON). */
  readonly stats: StoreStats = emptyStats();
  /** The file system's refusals during the run (the CLI stops at the first, by default). */
  readonly failures = new StoreFailures();

  /**
   * Opens `dir` as a store, empty: a new or empty directory is marked as the store's; one
   * marked by an earlier run has its `tiered/` and `wal/` folders cleared; any other
   * non-empty directory is refused with `FsStoreRefused`. File-system errors (read-only,
   * not a directory) are thrown as they are, for the CLI to report as a store failure.
   */
  constructor(dir: string) {
    this.dir = resolve(dir);
    if (existsSync(this.dir) && !statSync(this.dir).isDirectory()) throw new FsStoreRefused(`${dir} is a file, not a directory`);
    mkdirSync(this.dir, { recursive: true });
    const marker = join(this.dir, STORE_MARKER);
    const entries = readdirSync(this.dir);
    if (entries.length > 0 && !entries.includes(STORE_MARKER)) {
      throw new FsStoreRefused(
        `${dir} is not empty and holds no ${STORE_MARKER} marker of an earlier run: a run clears its store, so it only uses a new or empty directory, or one an earlier run made`,
      );
    }
    for (const store of ['tiered', 'wal']) rmSync(join(this.dir, store), { recursive: true, force: true });
    writeFileSync(marker, JSON.stringify({ tool: 'tierscope', layout: 1, note: 'tiered/ and wal/ here are cleared by the next `run --store fs` on this directory' }) + '\n');
  }

  private path(store: StoreName, key: string): string {
    const p = resolve(this.dir, store, key);
    if (!p.startsWith(resolve(this.dir, store) + sep)) throw new Error(`object key escapes the store directory: ${key}`);
    return p;
  }

  execute(req: ObjectStoreRequest): ObjectStoreResult {
    try {
      return this.executeOnDisk(req);
    } catch (e) {
      const code = fsFailureCode(e);
      if (code === null) throw e;
      return this.failures.record(req, (e as Error).message, code);
    }
  }

  private executeOnDisk(req: ObjectStoreRequest): ObjectStoreResult {
    switch (req.op) {
      case 'put': {
        const p = this.path(req.store, req.key);
        mkdirSync(dirname(p), { recursive: true });
        const bytes = encodeObject(req.key, req.object);
        writeFileWhole(p, bytes, PARTIAL);
        this.stats.puts++;
        this.stats.bytesPut += bytes.length;
        return { ok: true, bytes: req.object.bytes };
      }
      case 'get': {
        const p = this.path(req.store, req.key);
        if (!existsSync(p)) return { ok: false, bytes: 0, error: 'NoSuchKey' };
        // The model's byte range is the file's (a segment's batches, a WAL chunk).
        const range = fileRange(req);
        return readResult(req, range ? readRange(p, range.start, range.end) : readFileSync(p), this.stats);
      }
      case 'delete': {
        rmSync(this.path(req.store, req.key), { force: true });
        return { ok: true, bytes: 0 };
      }
      case 'list': {
        const root = join(this.dir, req.store);
        return { ok: true, bytes: 0, keys: walk(root).map((f) => relative(root, f).split(sep).join('/')).filter((k) => k.startsWith(req.prefix)).sort() };
      }
    }
  }

  snapshot(): Record<StoreName, Record<string, StoredObject>> {
    const out: Record<StoreName, Record<string, StoredObject>> = { tiered: {}, wal: {} };
    for (const store of ['tiered', 'wal'] as const) {
      const root = join(this.dir, store);
      for (const f of walk(root)) {
        const key = relative(root, f).split(sep).join('/');
        out[store][key] = decodeObject(key, readFileSync(f));
      }
    }
    return out;
  }

  restore(data: Record<StoreName, Record<string, StoredObject>>): void {
    // Only the store's own folders: the directory itself, its marker and anything else stay.
    for (const store of ['tiered', 'wal']) rmSync(join(this.dir, store), { recursive: true, force: true });
    for (const store of ['tiered', 'wal'] as const) {
      for (const [key, object] of Object.entries(data[store])) this.execute({ op: 'put', store, key, object });
    }
  }
}

/** Bytes [start, end] (inclusive; end undefined: to the end) of a file. */
function readRange(path: string, start: number, end?: number): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const last = Math.min(end ?? Infinity, fstatSync(fd).size - 1);
    const out = new Uint8Array(Math.max(0, last - start + 1));
    let got = 0;
    while (got < out.length) {
      const n = readSync(fd, out, got, out.length - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return out.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (!name.endsWith(PARTIAL)) out.push(p);
  }
  return out;
}

