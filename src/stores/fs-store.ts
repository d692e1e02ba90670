/**
 * An object store in a local directory (`--store fs --dir PATH`), laid out as a tiered
 * storage plugin would write it: `<dir>/<store>/<topic>-<partition>/<base offset>-<id>.<ext>`.
 * Segment `.log` files hold Kafka RecordBatch v2 batches and `.index` files Kafka's offset
 * index (relative offset int32, position int32 per batch); the leader-epoch checkpoint is
 * Kafka's text format. (The producer snapshot is still the model's JSON.)
 *
 * Synchronous, like the in-memory store, so a run on it is the same run: reads decode the
 * files back into exactly what was written, and sizes are the model's.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type ObjectStoreBackend, type ObjectStoreRequest, type ObjectStoreResult, type StoreName, type StoredObject, bytesRead } from '../../core/ports/object-store.js';
import { decodeObject, encodeObject } from './kafka-objects.js';

export class FsObjectStore implements ObjectStoreBackend {
  readonly dir: string;
  /** Batch positions of each `.log` written, for its `.index` (written right after it). */
  private positions = new Map<string, number[]>();

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
        writeFileSync(p, encodeObject(req.key, req.object, this.positions));
        return { ok: true, bytes: req.object.bytes };
      }
      case 'get': {
        const p = this.path(req.store, req.key);
        if (!existsSync(p)) return { ok: false, bytes: 0, error: 'NoSuchKey' };
        const object = decodeObject(req.key, readFileSync(p));
        const bytes = bytesRead(req, object.bytes);
        return { ok: true, bytes, object };
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
    rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    for (const store of ['tiered', 'wal'] as const) {
      for (const [key, object] of Object.entries(data[store])) this.execute({ op: 'put', store, key, object });
    }
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

