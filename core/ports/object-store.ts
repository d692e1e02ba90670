/**
 * What the core asks of an object store, as data. The kernel issues requests, a backend
 * executes them (in memory here; a directory or S3 in the Node shell), and the kernel
 * turns the result into a completion event at the modelled latency, so simulated time
 * never depends on how long the real store took.
 */
import type { RecordBatch } from '../domain/partition-log.js';

export type StoreName = 'tiered' | 'wal';

/** Object bodies: a segment's batches, or text (checkpoints, snapshots, indexes). */
export type StoredBody = { kind: 'segment'; batches: RecordBatch[] } | { kind: 'text'; text: string };

export interface StoredObject {
  bytes: number;
  body: StoredBody;
}

export type ObjectStoreRequest =
  | { op: 'put'; store: StoreName; key: string; object: StoredObject }
  | {
      op: 'get';
      store: StoreName;
      key: string;
      /**
       * Bytes wanted, inclusive (what the run counts as read). The model sizes objects as
       * their files are, so a store holding Kafka's files sends this range as it is.
       */
      range?: [number, number];
    }
  | { op: 'delete'; store: StoreName; key: string }
  | { op: 'list'; store: StoreName; prefix: string };

export interface ObjectStoreResult {
  ok: boolean;
  /** Bytes moved (the range for a ranged get). */
  bytes: number;
  object?: StoredObject;
  /**
   * When `object` holds only part of the stored object (a ranged read): the model byte
   * position of its first batch. Absent: the whole object.
   */
  objectStart?: number;
  keys?: string[];
  error?: string;
}

/** Bytes a GET moves: the requested range (inclusive, clipped to the object), or the whole object. */
export function bytesRead(req: { range?: [number, number] }, objectBytes: number): number {
  return req.range ? Math.max(0, Math.min(req.range[1], objectBytes - 1) - req.range[0] + 1) : objectBytes;
}

/**
 * A store backend. Synchronous ones (memory, a directory) implement `execute`; an
 * asynchronous one (S3) implements `executeAsync` too, and the kernel then awaits each
 * request before its next step, so simulated time stands still while the store works.
 */
export interface ObjectStoreBackend {
  execute(request: ObjectStoreRequest): ObjectStoreResult;
  executeAsync?(request: ObjectStoreRequest): Promise<ObjectStoreResult>;
  /** Every object, for checkpoints and the final state. */
  snapshot(): Record<StoreName, Record<string, StoredObject>>;
  restore(data: Record<StoreName, Record<string, StoredObject>>): void;
}

export class MemoryObjectStore implements ObjectStoreBackend {
  private objects: Record<StoreName, Record<string, StoredObject>> = { tiered: {}, wal: {} };

  execute(req: ObjectStoreRequest): ObjectStoreResult {
    const bucket = this.objects[req.store];
    switch (req.op) {
      case 'put':
        bucket[req.key] = req.object;
        return { ok: true, bytes: req.object.bytes };
      case 'get': {
        const obj = Object.prototype.hasOwnProperty.call(bucket, req.key) ? bucket[req.key] : undefined;
        if (obj === undefined) return { ok: false, bytes: 0, error: 'NoSuchKey' };
        const bytes = bytesRead(req, obj.bytes);
        return { ok: true, bytes, object: obj };
      }
      case 'delete':
        delete bucket[req.key];
        return { ok: true, bytes: 0 };
      case 'list':
        return { ok: true, bytes: 0, keys: Object.keys(bucket).filter((k) => k.startsWith(req.prefix)).sort() };
    }
  }

  snapshot(): Record<StoreName, Record<string, StoredObject>> {
    return { tiered: { ...this.objects.tiered }, wal: { ...this.objects.wal } };
  }

  restore(data: Record<StoreName, Record<string, StoredObject>>): void {
    this.objects = { tiered: { ...data.tiered }, wal: { ...data.wal } };
  }
}
