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
import type { RecordBatch } from '../../core/domain/partition-log.js';
import { decodeBatches, encodeBatch } from '../../core/format/record-batch.js';
import type { ObjectStoreBackend, ObjectStoreRequest, ObjectStoreResult, StoreName, StoredObject } from '../../core/ports/object-store.js';

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
        const bytes = req.range ? Math.max(0, Math.min(req.range[1], object.bytes - 1) - req.range[0] + 1) : object.bytes;
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

/** The base offset in a key `<topic>-<partition>/<20-digit base>-<id>.<ext>`. */
function baseOffsetOf(key: string): number {
  const m = /\/(\d{20})-[^/]*$/.exec(key);
  return m ? Number(m[1]) : 0;
}

const stem = (key: string) => key.replace(/\.[a-z_]+$/, '');

function encodeObject(key: string, object: StoredObject, positions: Map<string, number[]>): Uint8Array {
  const body = object.body;
  if (body.kind === 'segment') {
    const parts = body.batches.map((b) => encodeBatch(b, { valueBytes: valueBytesOf(b) }));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    const at: number[] = [];
    let pos = 0;
    for (const p of parts) {
      at.push(pos);
      out.set(p, pos);
      pos += p.length;
    }
    positions.set(stem(key), at);
    return out;
  }
  if (key.endsWith('.index')) {
    // Kafka's offset index: one entry per batch, relative offset and physical position.
    const offsets = body.text.length === 0 ? [] : body.text.split('\n').map(Number);
    const base = baseOffsetOf(key);
    const at = positions.get(stem(key)) ?? [];
    positions.delete(stem(key));
    const out = new Uint8Array(offsets.length * 8);
    const view = new DataView(out.buffer);
    offsets.forEach((o, i) => {
      view.setInt32(i * 8, o - base);
      view.setInt32(i * 8 + 4, at[i] ?? 0);
    });
    return out;
  }
  return Uint8Array.from(body.text, (c) => c.charCodeAt(0) & 0xff);
}

function decodeObject(key: string, bytes: Uint8Array): StoredObject {
  if (key.endsWith('.log')) {
    const batches: RecordBatch[] = decodeBatches(bytes).map((d) => {
      if (!d.crcValid) throw new Error(`corrupt record batch at ${d.position} in ${key}: CRC-32C mismatch`);
      const count = d.lastOffset - d.baseOffset + 1;
      return {
        baseOffset: d.baseOffset,
        lastOffset: d.lastOffset,
        leaderEpoch: d.partitionLeaderEpoch,
        producerId: d.producerId,
        baseSequence: d.baseSequence,
        bytes: count * (d.records[0]?.valueBytes ?? 0),
        appendedMs: d.baseTimestamp,
      };
    });
    return { bytes: batches.reduce((n, b) => n + b.bytes, 0), body: { kind: 'segment', batches } };
  }
  if (key.endsWith('.index')) {
    const base = baseOffsetOf(key);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const offsets: number[] = [];
    for (let i = 0; i + 8 <= bytes.length; i += 8) offsets.push(base + view.getInt32(i));
    return { bytes: bytes.length, body: { kind: 'text', text: offsets.join('\n') } };
  }
  const text = String.fromCharCode(...bytes);
  return { bytes: bytes.length, body: { kind: 'text', text } };
}

/** The model's records are `bytes / count` bytes each. */
function valueBytesOf(b: RecordBatch): number {
  const count = b.lastOffset - b.baseOffset + 1;
  return Math.floor(b.bytes / count);
}
