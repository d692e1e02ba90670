/**
 * An object store on S3 or an S3-compatible server, through @aws-sdk/client-s3, with the
 * objects in Kafka's formats (see kafka-objects.ts) under `<prefix><store>/<key>`. The
 * tiered store and the WAL's fast store may use different buckets (`walBucket`, e.g. an
 * S3 Express One Zone directory bucket `name--zone-id--x-s3`).
 *
 * Asynchronous: the kernel awaits each request before its next step, and latencies come
 * from the model, so a run on S3 prints the same JSON as in memory. A request that still
 * fails after the SDK's bounded retries comes back as a failed operation (the model then
 * cleans up and retries, or backs off), never as a crash. Credentials follow the SDK's
 * default chain and are never printed.
 */
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { type ObjectStoreBackend, type ObjectStoreRequest, type ObjectStoreResult, type StoreName, type StoredObject } from '../../core/ports/object-store.js';
import { StoreFailures } from './failure.js';
import { OffsetIndexCache, type StoreStats, cachedRange, emptyStats, encodeObject, forgetIndex, readResult, rememberIndex } from './kafka-objects.js';

export interface S3StoreOptions {
  bucket: string;
  walBucket?: string;
  prefix?: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Attempts per request, the SDK's retries included (default 3). */
  maxAttempts?: number;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** Why an S3 store cannot be used: one line, without secrets. */
export class S3SettingsError extends Error {}

export class S3ObjectStore implements ObjectStoreBackend {
  private client: S3Client;
  private indexes = new OffsetIndexCache();
  /** What went over the wire (the model's figures are in the run's JSON). */
  readonly stats: StoreStats = emptyStats();
  /** Requests S3 refused or never answered (not a missing key, which the model expects). */
  readonly failures = new StoreFailures();
  /**
   * Buffers lent to the segment encoder, back here once their PUT is done. A segment is
   * megabytes: a new buffer for each (allocated, zeroed, then collected, with the garbage
   * collections its size brings on) cost the adapter a tenth of its upload throughput.
   */
  private spare: Uint8Array[] = [];

  private lend(size: number): Uint8Array {
    let best = -1;
    for (let i = 0; i < this.spare.length; i++) if (this.spare[i].length >= size && (best < 0 || this.spare[i].length < this.spare[best].length)) best = i;
    if (best >= 0) return this.spare.splice(best, 1)[0];
    // Whole mebibytes, so one buffer serves segments of similar sizes.
    return new Uint8Array(Math.ceil(size / 1048576) * 1048576);
  }

  private giveBack(buffer: Uint8Array): void {
    this.spare.push(buffer);
    // At most a few, the largest kept.
    if (this.spare.length > 4) this.spare.sort((a, b) => b.length - a.length).length = 4;
  }

  constructor(private readonly opts: S3StoreOptions) {
    this.client = new S3Client({
      region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle ?? false,
      maxAttempts: opts.maxAttempts ?? 3,
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
    });
  }

  private bucketOf(store: StoreName): string {
    return store === 'wal' && this.opts.walBucket ? this.opts.walBucket : this.opts.bucket;
  }

  private keyOf(store: StoreName, key: string): string {
    return `${this.opts.prefix ?? ''}${store}/${key}`;
  }

  /** Checks that the buckets exist and are reachable; creates them when asked. */
  async check(createBuckets = false): Promise<void> {
    const buckets = [...new Set([this.opts.bucket, this.opts.walBucket].filter((b): b is string => !!b))];
    for (const bucket of buckets) {
      try {
        await this.client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (e) {
        const err = e as { name?: string; $metadata?: { httpStatusCode?: number }; message?: string; code?: string };
        const status = err.$metadata?.httpStatusCode;
        if ((status === 404 || err.name === 'NotFound' || err.name === 'NoSuchBucket') && createBuckets) {
          await this.client.send(new CreateBucketCommand({ Bucket: bucket }));
          continue;
        }
        if (status === 404 || err.name === 'NotFound') throw new S3SettingsError(`bucket "${bucket}" does not exist (use --create-buckets to create it)`);
        if (status === 403) throw new S3SettingsError(`access to bucket "${bucket}" was denied: check the credentials`);
        throw new S3SettingsError(`cannot reach S3 for bucket "${bucket}": ${err.code ?? err.name ?? 'error'} ${err.message ?? ''}`.trim());
      }
    }
  }

  execute(): ObjectStoreResult {
    throw new Error('the S3 store is asynchronous: the kernel uses executeAsync');
  }

  async executeAsync(req: ObjectStoreRequest): Promise<ObjectStoreResult> {
    const Bucket = this.bucketOf(req.store);
    try {
      switch (req.op) {
        case 'put': {
          let lent: Uint8Array | undefined;
          const Body = encodeObject(req.key, req.object, this.indexes, (size) => (lent = this.lend(size)));
          try {
            await this.client.send(new PutObjectCommand({ Bucket, Key: this.keyOf(req.store, req.key), Body }));
          } finally {
            // The SDK is done with the body once the request has completed (retries included).
            if (lent !== undefined) this.giveBack(lent);
          }
          this.stats.puts++;
          return { ok: true, bytes: req.object.bytes };
        }
        case 'get': {
          // A segment's batches through its offset index (cached, else fetched); a WAL chunk through the positions kept at write.
          let range = cachedRange(req, this.indexes);
          if (range && 'needIndex' in range) {
            const index = await this.client.send(new GetObjectCommand({ Bucket, Key: this.keyOf(req.store, range.needIndex) }));
            range = rememberIndex(req, this.indexes, this.stats, range.needIndex, new Uint8Array(await index.Body!.transformToByteArray()));
          }
          const out = await this.client.send(
            new GetObjectCommand({ Bucket, Key: this.keyOf(req.store, req.key), ...(range ? { Range: `bytes=${range.start}-${range.end ?? ''}` } : {}) }),
          );
          return readResult(req, new Uint8Array(await out.Body!.transformToByteArray()), range, this.stats);
        }
        case 'delete':
          await this.client.send(new DeleteObjectCommand({ Bucket, Key: this.keyOf(req.store, req.key) }));
          forgetIndex(this.indexes, req.key);
          return { ok: true, bytes: 0 };
        case 'list': {
          const out = await this.client.send(new ListObjectsV2Command({ Bucket, Prefix: this.keyOf(req.store, req.prefix) }));
          const strip = this.keyOf(req.store, '');
          return { ok: true, bytes: 0, keys: (out.Contents ?? []).map((c) => (c.Key ?? '').slice(strip.length)).sort() };
        }
      }
    } catch (e) {
      const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (req.op === 'get' && (err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404)) return { ok: false, bytes: 0, error: 'NoSuchKey' };
      const error = `S3 ${err.name ?? 'error'}${err.$metadata?.httpStatusCode ? ` (HTTP ${err.$metadata.httpStatusCode})` : ''}`;
      return this.failures.record(req, `${error}: ${(e as Error).message ?? ''}`, error);
    }
  }

  snapshot(): Record<StoreName, Record<string, StoredObject>> {
    throw new Error('checkpoints are not supported on the S3 store (the CLI does not take them)');
  }

  restore(): void {
    throw new Error('checkpoints are not supported on the S3 store');
  }

  destroy(): void {
    this.client.destroy();
  }
}
