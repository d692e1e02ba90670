/**
 * An object store in a local directory (`--store fs --dir PATH`), laid out as a tiered
 * storage plugin would write it: `<dir>/<store>/<topic>-<partition>/<base offset>-<id>.<ext>`.
 * Segment `.log` files hold Kafka RecordBatch v2 batches and `.index` files Kafka's offset
 * index (relative offset int32, position int32 per batch); the leader-epoch checkpoint is
 * Kafka's text format, and the producer snapshot is Kafka's binary snapshot file.
 *
 * Synchronous, like the in-memory store, so a run on it is the same run: reads decode the
 * files back into exactly what was written, and sizes are the model's.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type ObjectStoreBackend, type ObjectStoreRequest, type ObjectStoreResult, type StoreName, type StoredObject } from '../../core/ports/object-store.js';
import { OffsetIndexCache, type StoreStats, cachedRange, decodeObject, emptyStats, encodeObject, forgetIndex, readResult, rememberIndex } from './kafka-objects.js';

export class FsObjectStore implements ObjectStoreBackend {
  readonly dir: string;
  /** Offset indexes by segment, for each `.index` written and for ranged reads. */
  private indexes = new OffsetIndexCache();
  /** What was read and written for real (the model's figures are in the run's JSON). */
  readonly stats: StoreStats = emptyStats();

  /** Starts empty: the `tiered/` and `wal/` folders under `dir` belong to the store and are cleared. */
  constructor(dir: string) {
    this.dir = resolve(dir);
    mkdirSync(this.dir, { recursive: true });
    for (const store of ['tiered', 'wal']) rmSync(join(this.dir, store), { recursive: true, force: true });
  }

  private path(store: StoreName, key: string): string {
    const p = resolve(this.dir, store, key);
    if (!p.startsWith(resolve(this.dir, store) + sep)) throw new Error(`object key escapes the store directory: ${key}`);
    return p;
  }

  execute(req: ObjectStoreRequest): ObjectStoreResult {
    switch (req.op) {
      case 'put': {
        const p = this.path(req.store, req.key);
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, encodeObject(req.key, req.object, this.indexes));
        this.stats.puts++;
        return { ok: true, bytes: req.object.bytes };
      }
      case 'get': {
        const p = this.path(req.store, req.key);
        if (!existsSync(p)) return { ok: false, bytes: 0, error: 'NoSuchKey' };
        // A segment's batches through its offset index (cached, else read); a WAL chunk through the positions kept at write.
        let range = cachedRange(req, this.indexes);
        if (range && 'needIndex' in range) {
          const ip = this.path(req.store, range.needIndex);
          range = existsSync(ip) ? rememberIndex(req, this.indexes, this.stats, range.needIndex, readFileSync(ip)) : undefined;
        }
        return readResult(req, range ? readRange(p, range.start, range.end) : readFileSync(p), range, this.stats);
      }
      case 'delete': {
        rmSync(this.path(req.store, req.key), { force: true });
        forgetIndex(this.indexes, req.key);
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
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
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
    else out.push(p);
  }
  return out;
}

