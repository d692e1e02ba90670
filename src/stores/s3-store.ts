/**
 * An object store on S3 or an S3-compatible server, through @aws-sdk/client-s3, with the
 * objects in Kafka's formats (see kafka-objects.ts) under `<prefix><store>/<key>`. The
 * tiered store and the WAL's fast store may use different buckets (`walBucket`, e.g. an
 * S3 Express One Zone directory bucket `name--zone-id--x-s3`).
 *
 * Asynchronous: the kernel awaits each request before its next step, and latencies come
 * from the model, so a run on S3 prints the same JSON as in memory. A request that still
 * fails after the SDK's bounded retries (3 attempts), or gets no answer within its time
 * (`timeoutMs`, retries included), is recorded in `failures` with its cause (connection
 * refused by host:port, timed out after N ms, HTTP status and S3 error code) and comes back
 * as a failed operation, never as a crash: the CLI stops there by default, or lets the
 * model clean up and retry (`--store-failures fault`). Credentials follow the SDK's default
 * chain and are never printed.
 *
 * A bucket and prefix belong to one run at a time (two runs there delete each other's
 * objects): the CLI takes a lease object, `<prefix>.tierscope-lease` in the tiered bucket,
 * before the run (`takeLease`). It is read first: a lease renewed within LEASE_TTL_MS is
 * another run's, and this run is refused naming it; an older one was left by a run that died,
 * which is said and taken over. It is then written with `If-None-Match: *`, so of two runs
 * starting at once on a server that honours conditional writes (AWS S3 since 2024, Ceph RGW)
 * only one gets it; servers that ignore the header (s3rver) still refuse a run that starts
 * while another holds the lease. The run renews it every LEASE_TTL_MS / 3 and deletes it at
 * the end (`releaseLease`).
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
import { hostname } from 'node:os';
import { StoreFailures } from './failure.js';
import { type StoreStats, emptyStats, encodeObject, fileRange, readResult } from './kafka-objects.js';

export interface S3StoreOptions {
  bucket: string;
  walBucket?: string;
  prefix?: string;
  region?: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Attempts per request, the SDK's retries included (default 3). */
  maxAttempts?: number;
  /**
   * The longest one request may take, its retries included, before it fails as timed out
   * (default S3_TIMEOUT_MS). A GET's body counts: the time runs until its last byte.
   */
  timeoutMs?: number;
  /** The longest one attempt may take to connect (default S3_CONNECT_TIMEOUT_MS, or timeoutMs if shorter). */
  connectTimeoutMs?: number;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** A lease not renewed for this long was left by a run that died. */
export const LEASE_TTL_MS = 60_000;
/** The lease object's name, after the prefix. */
export const LEASE_KEY = '.tierscope-lease';

/** What a lease object holds. */
interface Lease {
  tool: 'tierscope';
  pid: number;
  host: string;
  startedAt: string;
  renewedAt: number;
}

/** A lease held by another run: the run is refused (exit 2). */
export class S3LeaseHeld extends Error {}

/** A request's time, retries included, unless `timeoutMs` says otherwise. */
export const S3_TIMEOUT_MS = 30_000;
/** One attempt's time to connect. */
export const S3_CONNECT_TIMEOUT_MS = 5_000;

/** Why an S3 store cannot be used: one line, without secrets. */
export class S3SettingsError extends Error {}

/**
 * Why a key prefix is refused, or null. Servers that keep objects as files (s3rver, MinIO
 * in filesystem mode, a gateway to a disk) map `a/../b` to a path, so a prefix must not
 * leave its folder: no `.` or `..` segment, no leading `/`, no empty segment (`a//b`), no
 * backslash (a separator on Windows) and no control character. A trailing `/` is the usual
 * way to end one (`tierscope/`).
 */
export function badPrefix(prefix: string): string | null {
  if (prefix === '') return null;
  const why = badKeyPart(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
  return why === null ? null : `"${printable(prefix)}" ${why}`;
}

/** Why a key (or a part of one, without a trailing `/`) is unsafe as a path, or null. */
function badKeyPart(key: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(key)) return 'has a control character';
  if (key.includes('\\')) return 'has a backslash';
  if (key.startsWith('/')) return 'starts with /';
  for (const seg of key.split('/')) {
    if (seg === '') return 'has an empty segment (//)';
    if (seg === '.' || seg === '..') return `has a "${seg}" segment`;
  }
  return null;
}

function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A request that got no answer in time: `timeoutMs` passed, retries included. */
class S3Timeout extends Error {
  override name = 'S3Timeout';
  /** `inBody`: the answer had begun (a GET's headers came, its body stopped). */
  constructor(
    readonly ms: number,
    readonly inBody = false,
  ) {
    super(`timed out after ${ms} ms`);
  }
}

/** An S3 error as a short label for the trace and a one-line cause for the report. */
export function describeS3Error(e: unknown, host: string): { error: string; cause: string } {
  if (e instanceof S3Timeout) return { error: `S3 timeout after ${e.ms} ms`, cause: `timed out after ${e.ms} ms waiting for ${host} (${e.inBody ? 'the body of its answer stopped coming' : 'no answer'})` };
  const err = (e ?? {}) as { name?: string; code?: string; message?: string; address?: string; port?: number; $metadata?: { httpStatusCode?: number; attempts?: number }; $fault?: string };
  const attempts = err.$metadata?.attempts ?? 1;
  const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
  const at = err.address ? `${err.address}${err.port ? `:${err.port}` : ''}` : host;
  const net: Record<string, [string, string]> = {
    ECONNREFUSED: ['connection refused', `connection refused by ${at}`],
    ECONNRESET: ['connection reset', `connection reset by ${at}`],
    EPIPE: ['connection closed', `connection closed by ${at} while sending`],
    ETIMEDOUT: ['connect timeout', `connecting to ${at} timed out`],
    EHOSTUNREACH: ['host unreachable', `host ${at} unreachable`],
    ENETUNREACH: ['network unreachable', `network unreachable for ${at}`],
    ENOTFOUND: ['host not found', `host name of ${host} not found`],
    EAI_AGAIN: ['host not found', `host name of ${host} could not be resolved now`],
  };
  if (err.code && net[err.code]) {
    const [short, long] = net[err.code];
    return { error: `S3 ${short} (${err.code})`, cause: `${long} (${err.code})${tries}` };
  }
  const message = scrub(err.message ?? '');
  if (err.name === 'TimeoutError' && /did not establish a connection/.test(message)) {
    const ms = /(\d+) ms/.exec(message)?.[1];
    return { error: `S3 connect timeout${ms ? ` after ${ms} ms` : ''}`, cause: `could not connect to ${host}${ms ? ` within ${ms} ms` : ''}${tries}` };
  }
  if (err.name === 'TimeoutError') {
    const ms = /(\d+) ms/.exec(message)?.[1];
    return { error: `S3 timeout${ms ? ` after ${ms} ms` : ''}`, cause: `timed out${ms ? ` after ${ms} ms` : ''} waiting for ${host} (the socket went silent)${tries}` };
  }
  const status = err.$metadata?.httpStatusCode;
  if (status !== undefined) {
    // An answer without an S3 error code (a proxy's HTML page, a HEAD's empty body) leaves the SDK guessing a name.
    const named = err.name !== undefined && !/^(Unknown|UnknownError|\d+)$/.test(err.name);
    const code = named ? err.name! : 'no S3 error code';
    const text = message !== '' && message !== err.name && !/^(Unknown|UnknownError)$/.test(message) ? `: ${message}` : '';
    return { error: named ? `S3 ${err.name} (HTTP ${status})` : `S3 HTTP ${status}`, cause: `HTTP ${status} from ${host}, ${code}${text}${tries}` };
  }
  const what = err.code ?? err.name ?? 'error';
  return { error: `S3 ${what}`, cause: `${what}${message !== '' && message !== what ? `: ${message}` : ''} (${host})${tries}` };
}

/** Whatever might carry a secret in an error message: signatures, credentials, session tokens. */
function scrub(s: string): string {
  return s
    .replace(/((?:X-Amz-)?(?:Signature|Credential|Security-Token|SignatureProvided)=)[^&\s,"]+/gi, '$1…')
    .replace(/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, '…');
}

export class S3ObjectStore implements ObjectStoreBackend {
  private client: S3Client;
  /** What went over the wire (the model's figures are in the run's JSON). */
  readonly stats: StoreStats = emptyStats();
  /** Requests S3 refused or never answered (not a missing key, which the model expects). */
  readonly failures = new StoreFailures();
  /** Objects this run wrote and has not deleted, `store/key`: one of them missing on a GET is a failure, not NoSuchKey. */
  private readonly written = new Set<string>();
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

  private readonly timeoutMs: number;
  /** The host each bucket's requests go to (seen by the client as it builds them), for causes. */
  private readonly hosts = new Map<string, string>();

  constructor(private readonly opts: S3StoreOptions) {
    const bad = badPrefix(opts.prefix ?? '');
    if (bad !== null) throw new S3SettingsError(`prefix ${bad}`);
    this.timeoutMs = opts.timeoutMs ?? S3_TIMEOUT_MS;
    this.client = new S3Client({
      region: opts.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle ?? false,
      maxAttempts: opts.maxAttempts ?? 3,
      // Without these, an endpoint that accepts connections and never answers holds a
      // request (and the run) for ever. The whole request's time is bounded in `call`.
      requestHandler: {
        connectionTimeout: Math.min(opts.connectTimeoutMs ?? S3_CONNECT_TIMEOUT_MS, this.timeoutMs),
        socketTimeout: this.timeoutMs,
      },
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
    });
    this.client.middlewareStack.add(
      (next) => (args) => {
        const r = args.request as { hostname?: string; port?: number };
        const bucket = (args.input as { Bucket?: string }).Bucket;
        if (bucket !== undefined && r.hostname && !this.hosts.has(bucket)) this.hosts.set(bucket, `${r.hostname}${r.port ? `:${r.port}` : ''}`);
        return next(args);
      },
      { step: 'build', name: 'tierscopeRequestHost' },
    );
  }

  /** Where a bucket's requests go, as host[:port] (before the first request: the endpoint, or S3 in the region). */
  private hostOf(bucket: string): string {
    const seen = this.hosts.get(bucket);
    if (seen !== undefined) return seen;
    if (this.opts.endpoint) {
      try {
        return new URL(this.opts.endpoint).host;
      } catch {
        return 'the endpoint';
      }
    }
    return `S3 in ${this.opts.region ?? process.env.AWS_REGION ?? 'us-east-1'}`;
  }

  /**
   * One request, its retries and (for a GET) its body, bounded by `timeoutMs`: past it the
   * request is aborted and fails as an S3Timeout.
   */
  private async call<T>(work: (abortSignal: AbortSignal) => Promise<T>, phase = { inBody: false }): Promise<T> {
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = new S3Timeout(this.timeoutMs, phase.inBody);
        abort.abort(e);
        reject(e);
      }, this.timeoutMs);
    });
    const done = work(abort.signal);
    try {
      return await Promise.race([done, deadline]);
    } finally {
      clearTimeout(timer);
      // The aborted request rejects later; that answer is already given.
      done.catch(() => {});
    }
  }

  private async getBytes(Bucket: string, Key: string, Range?: string): Promise<Uint8Array> {
    const phase = { inBody: false };
    return this.call(async (abortSignal) => {
      const out = await this.client.send(new GetObjectCommand({ Bucket, Key, ...(Range ? { Range } : {}) }), { abortSignal });
      phase.inBody = true;
      const body = out.Body!;
      // An abort after the headers must stop the body too.
      const stop = () => (body as { destroy?: (e?: Error) => void }).destroy?.(new S3Timeout(this.timeoutMs));
      abortSignal.addEventListener('abort', stop, { once: true });
      try {
        return new Uint8Array(await body.transformToByteArray());
      } finally {
        abortSignal.removeEventListener('abort', stop);
      }
    }, phase);
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
        await this.call((abortSignal) => this.client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal }));
      } catch (e) {
        const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
        const status = err.$metadata?.httpStatusCode;
        if ((status === 404 || err.name === 'NotFound' || err.name === 'NoSuchBucket') && createBuckets) {
          try {
            await this.call((abortSignal) => this.client.send(new CreateBucketCommand({ Bucket: bucket }), { abortSignal }));
          } catch (c) {
            throw new S3SettingsError(`cannot create bucket "${bucket}": ${describeS3Error(c, this.hostOf(bucket)).cause}`);
          }
          continue;
        }
        if (status === 404 || err.name === 'NotFound') throw new S3SettingsError(`bucket "${bucket}" does not exist (use --create-buckets to create it)`);
        if (status === 403) throw new S3SettingsError(`access to bucket "${bucket}" was denied: check the credentials`);
        throw new S3SettingsError(`cannot reach S3 for bucket "${bucket}": ${describeS3Error(e, this.hostOf(bucket)).cause}`);
      }
    }
  }

  execute(): ObjectStoreResult {
    throw new Error('the S3 store is asynchronous: the kernel uses executeAsync');
  }

  async executeAsync(req: ObjectStoreRequest): Promise<ObjectStoreResult> {
    const Bucket = this.bucketOf(req.store);
    // The model makes its keys; one that would leave the prefix's folder is refused unsent.
    const unsafe = badKeyPart(req.op === 'list' ? req.prefix.replace(/\/$/, '') || 'x' : req.key);
    if (unsafe !== null) return this.failures.record(req, `refused to send: the key ${unsafe}`, 'S3 unsafe key');
    try {
      switch (req.op) {
        case 'put': {
          let lent: Uint8Array | undefined;
          const Body = encodeObject(req.key, req.object, (size) => (lent = this.lend(size)));
          let timedOut = false;
          try {
            await this.call((abortSignal) => this.client.send(new PutObjectCommand({ Bucket, Key: this.keyOf(req.store, req.key), Body }), { abortSignal }));
          } catch (e) {
            timedOut = e instanceof S3Timeout;
            throw e;
          } finally {
            // The SDK is done with the body once the request has completed (retries included);
            // after a timeout it may still hold it, so that buffer is not lent again.
            if (lent !== undefined && !timedOut) this.giveBack(lent);
          }
          this.stats.puts++;
          this.stats.bytesPut += Body.length;
          this.written.add(`${req.store}/${req.key}`);
          return { ok: true, bytes: req.object.bytes };
        }
        case 'get': {
          // The model's byte range is the file's (a segment's batches from the offset index, a WAL chunk).
          const range = fileRange(req);
          const body = await this.getBytes(Bucket, this.keyOf(req.store, req.key), range ? `bytes=${range.start}-${range.end}` : undefined);
          return readResult(req, body, this.stats);
        }
        case 'delete':
          await this.call((abortSignal) => this.client.send(new DeleteObjectCommand({ Bucket, Key: this.keyOf(req.store, req.key) }), { abortSignal }));
          this.written.delete(`${req.store}/${req.key}`);
          return { ok: true, bytes: 0 };
        case 'list': {
          // ListObjectsV2 answers at most 1,000 keys a page (AWS and Ceph RGW alike): every
          // page is asked for, following NextContinuationToken, so a listing is never cut short.
          const strip = this.keyOf(req.store, '');
          const keys: string[] = [];
          let token: string | undefined;
          for (;;) {
            const page = await this.call((abortSignal) =>
              this.client.send(new ListObjectsV2Command({ Bucket, Prefix: this.keyOf(req.store, req.prefix), ...(token !== undefined ? { ContinuationToken: token } : {}) }), { abortSignal }),
            );
            for (const c of page.Contents ?? []) keys.push((c.Key ?? '').slice(strip.length));
            if (page.IsTruncated !== true) break;
            if (page.NextContinuationToken === undefined || page.NextContinuationToken === token) throw new Error(`ListObjectsV2 of ${Bucket} said more keys follow but gave no new continuation token`);
            token = page.NextContinuationToken;
          }
          return { ok: true, bytes: 0, keys: keys.sort() };
        }
      }
    } catch (e) {
      const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (req.op === 'get' && (err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404)) {
        // An object this run wrote and never deleted is gone: another client of the bucket
        // and prefix deleted it (two runs sharing one). A store failure, not the model's answer.
        if (this.written.has(`${req.store}/${req.key}`)) return this.failures.record(req, `${this.keyOf(req.store, req.key)} in ${Bucket} was written by this run and is gone: another client deleted it (do two runs share this bucket and --prefix?)`, 'ObjectLost');
        return { ok: false, bytes: 0, error: 'NoSuchKey' };
      }
      const { error, cause } = describeS3Error(e, this.hostOf(Bucket));
      return this.failures.record(req, cause, error);
    }
  }

  snapshot(): Record<StoreName, Record<string, StoredObject>> {
    throw new Error('checkpoints are not supported on the S3 store (the CLI does not take them)');
  }

  restore(): void {
    throw new Error('checkpoints are not supported on the S3 store');
  }

  destroy(): void {
    if (this.renewal !== null) clearInterval(this.renewal);
    this.renewal = null;
    this.client.destroy();
  }

  private renewal: ReturnType<typeof setInterval> | null = null;
  private lease: Lease | null = null;

  private leaseKey(): string {
    return `${this.opts.prefix ?? ''}${LEASE_KEY}`;
  }

  private describeLease(l: Partial<Lease>, now: number): string {
    const ago = typeof l.renewedAt === 'number' ? `${Math.max(0, Math.round((now - l.renewedAt) / 1000))} s ago` : 'at an unknown time';
    return `run ${l.pid ?? '?'} on host ${l.host ?? '?'} (started ${l.startedAt ?? '?'}, lease renewed ${ago})`;
  }

  /**
   * Takes the bucket and prefix for this run (see the file's header); the notes to print (a
   * dead run's lease taken over). Throws S3LeaseHeld when another run holds it, S3SettingsError
   * when the lease cannot be read or written.
   */
  async takeLease(now: () => number = Date.now, host = hostname()): Promise<string[]> {
    const Bucket = this.opts.bucket;
    const Key = this.leaseKey();
    const where = `s3://${Bucket}/${Key}`;
    const notes: string[] = [];
    let old: Partial<Lease> | null = null;
    try {
      old = JSON.parse(new TextDecoder().decode(await this.getBytes(Bucket, Key))) as Partial<Lease>;
    } catch (e) {
      const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (!(err.name === 'NoSuchKey' || err.$metadata?.httpStatusCode === 404)) {
        if (e instanceof SyntaxError) old = {};
        else throw new S3SettingsError(`cannot read the lease ${where}: ${describeS3Error(e, this.hostOf(Bucket)).cause}`);
      }
    }
    if (old !== null) {
      const t = now();
      if (typeof old.renewedAt === 'number' && t - old.renewedAt < LEASE_TTL_MS) {
        throw new S3LeaseHeld(
          `bucket ${Bucket} and prefix "${this.opts.prefix ?? ''}" are in use by ${this.describeLease(old, t)}: two runs there delete each other's objects; give another --prefix, or wait for it to end (a lease not renewed for ${LEASE_TTL_MS / 1000} s is taken over)`,
        );
      }
      notes.push(`took over the lease ${where} of ${this.describeLease(old, t)}: that run ended without releasing it (killed?); its objects under the prefix may be left over`);
      try {
        await this.call((abortSignal) => this.client.send(new DeleteObjectCommand({ Bucket, Key }), { abortSignal }));
      } catch (e) {
        throw new S3SettingsError(`cannot remove the stale lease ${where}: ${describeS3Error(e, this.hostOf(Bucket)).cause}`);
      }
    }
    const lease: Lease = { tool: 'tierscope', pid: process.pid, host, startedAt: new Date(now()).toISOString(), renewedAt: now() };
    const put = (conditional: boolean) =>
      this.call((abortSignal) => this.client.send(new PutObjectCommand({ Bucket, Key, Body: JSON.stringify(lease), ...(conditional ? { IfNoneMatch: '*' } : {}) }), { abortSignal }));
    try {
      try {
        await put(true);
      } catch (e) {
        // A server without conditional writes (501 NotImplemented): the read above still
        // refuses a run that starts while another holds the lease.
        const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (err.$metadata?.httpStatusCode === 501 || err.name === 'NotImplemented') await put(false);
        else throw e;
      }
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 412 || status === 409) throw new S3LeaseHeld(`bucket ${Bucket} and prefix "${this.opts.prefix ?? ''}": another run took the lease ${where} at the same moment; give another --prefix`);
      throw new S3SettingsError(`cannot write the lease ${where}: ${describeS3Error(e, this.hostOf(Bucket)).cause}`);
    }
    this.lease = lease;
    this.renewal = setInterval(() => {
      if (this.lease === null) return;
      this.lease.renewedAt = now();
      const body = JSON.stringify(this.lease);
      // Best effort: a lease that cannot be renewed lapses, and the run's own failures say why.
      void this.call((abortSignal) => this.client.send(new PutObjectCommand({ Bucket, Key, Body: body }), { abortSignal })).catch(() => {});
    }, LEASE_TTL_MS / 3);
    this.renewal.unref();
    return notes;
  }

  /** Deletes this run's lease (best effort: a store that is down keeps it, and the next run takes it over once it lapses). */
  async releaseLease(): Promise<void> {
    if (this.renewal !== null) clearInterval(this.renewal);
    this.renewal = null;
    if (this.lease === null) return;
    this.lease = null;
    const Bucket = this.opts.bucket;
    const Key = this.leaseKey();
    await this.call((abortSignal) => this.client.send(new DeleteObjectCommand({ Bucket, Key }), { abortSignal })).catch(() => {});
  }
}
