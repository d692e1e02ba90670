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
 *
 * A store belongs to one run at a time: the run takes a lock file beside the marker
 * (`.tierscope-store.lock`, created only if absent, holding its process id, host and start).
 * A second run on the directory while the first is alive is refused, naming the holder; a
 * lock left by a run that died (its process is gone) is reported in `notes` and taken over,
 * never silently. And an object this run wrote that a GET finds missing is a store failure
 * (someone else deleted it), never the model's answer `NoSuchKey`.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type ObjectStoreBackend, type ObjectStoreRequest, type ObjectStoreResult, type StoreName, type StoredObject } from '../../core/ports/object-store.js';
import { writeFileWhole } from '../write-whole.js';
import { StoreFailures } from './failure.js';
import { type StoreStats, decodeObject, emptyStats, encodeObject, fileRange, readResult } from './kafka-objects.js';

/** The file that marks a directory as a TierScope store. */
export const STORE_MARKER = '.tierscope-store';
/** The file a run holds while it uses the store. */
export const STORE_LOCK = '.tierscope-store.lock';

interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/** The process `pid` on this host is alive (signal 0 checks without signalling; EPERM: alive, not ours). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describeHolder(h: LockHolder): string {
  return `process ${h.pid} on ${h.host}, since ${h.startedAt}`;
}

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
  /** What the user should hear about the store before the run (a stale lock taken over). */
  readonly notes: string[] = [];
  /** Objects this run wrote and has not deleted, `store/key`. */
  private readonly written = new Set<string>();
  private readonly lockPath: string;
  private locked = false;
  private readonly releaseOnExit = (): void => this.release();

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
    // A lock alone is what a run killed at its start leaves: the directory is still new.
    const entries = readdirSync(this.dir).filter((e) => e !== STORE_LOCK);
    if (entries.length > 0 && !entries.includes(STORE_MARKER)) {
      throw new FsStoreRefused(
        `${dir} is not empty and holds no ${STORE_MARKER} marker of an earlier run: a run clears its store, so it only uses a new or empty directory, or one an earlier run made`,
      );
    }
    this.lockPath = join(this.dir, STORE_LOCK);
    this.lock(dir);
    for (const store of ['tiered', 'wal']) rmSync(join(this.dir, store), { recursive: true, force: true });
    writeFileSync(marker, JSON.stringify({ tool: 'tierscope', layout: 1, note: 'tiered/ and wal/ here are cleared by the next `run --store fs` on this directory' }) + '\n');
  }

  /** Takes the store's lock, or refuses (a live holder), or takes over a dead run's lock and says so. */
  private lock(dir: string): void {
    const me: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(this.lockPath, 'wx');
        try {
          writeSync(fd, JSON.stringify(me) + '\n');
        } finally {
          closeSync(fd);
        }
        this.locked = true;
        process.once('exit', this.releaseOnExit);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let holder: LockHolder | null = null;
      try {
        const h = JSON.parse(readFileSync(this.lockPath, 'utf8')) as Partial<LockHolder>;
        if (typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.startedAt === 'string') holder = { pid: h.pid, host: h.host, startedAt: h.startedAt };
      } catch {
        holder = null;
      }
      if (holder === null) throw new FsStoreRefused(`${dir} has a lock file ${STORE_LOCK} that does not say which run holds it: if no run uses this directory, remove that file`);
      if (holder.host !== me.host) throw new FsStoreRefused(`${dir} is in use by another run (${describeHolder(holder)}): two runs on one store would delete each other's objects; if that run is gone, remove ${join(dir, STORE_LOCK)}`);
      if (processAlive(holder.pid)) throw new FsStoreRefused(`${dir} is in use by another run (${describeHolder(holder)}): two runs on one store would delete each other's objects; wait for it, or give another --dir`);
      // The holder is gone without releasing the lock (killed): say so, then take it.
      this.notes.push(`${dir}: the run that held this store (${describeHolder(holder)}) ended without releasing it (killed?); its objects are cleared now`);
      rmSync(this.lockPath, { force: true });
    }
    throw new FsStoreRefused(`${dir}: another run took the store's lock at the same moment; give another --dir`);
  }

  /** Gives the store back (at the end of the run, and on exit however it ends). */
  release(): void {
    if (!this.locked) return;
    this.locked = false;
    process.removeListener('exit', this.releaseOnExit);
    try {
      const h = JSON.parse(readFileSync(this.lockPath, 'utf8')) as Partial<LockHolder>;
      if (h.pid === process.pid) unlinkSync(this.lockPath);
    } catch {
      // already gone
    }
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
        this.written.add(`${req.store}/${req.key}`);
        this.stats.puts++;
        this.stats.bytesPut += bytes.length;
        return { ok: true, bytes: req.object.bytes };
      }
      case 'get': {
        const p = this.path(req.store, req.key);
        if (!existsSync(p)) {
          // An object this run wrote and never deleted is gone: something else deleted it.
          if (this.written.has(`${req.store}/${req.key}`)) return this.failures.record(req, `${req.store}/${req.key} was written by this run and is gone: another process deleted it`, 'ObjectLost');
          return { ok: false, bytes: 0, error: 'NoSuchKey' };
        }
        // The model's byte range is the file's (a segment's batches, a WAL chunk).
        const range = fileRange(req);
        return readResult(req, range ? readRange(p, range.start, range.end) : readFileSync(p), this.stats);
      }
      case 'delete': {
        rmSync(this.path(req.store, req.key), { force: true });
        this.written.delete(`${req.store}/${req.key}`);
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
    this.written.clear();
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

