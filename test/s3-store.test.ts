/**
 * The S3 store against a real S3 endpoint (s3rver on 127.0.0.1, started here and stopped
 * afterwards): the same JSON as in memory, objects in Kafka's format in the bucket, and
 * bad settings reported in one line with exit code 3.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkpointUpTo, parseCheckpoint } from '../core/domain/leader-epoch-cache.js';
import { decodeProducerSnapshot } from '../core/format/producer-snapshot.js';
import { decodeBatches } from '../core/format/record-batch.js';
import { MemoryObjectStore } from '../core/ports/object-store.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import type { ObjectStoreEntry } from '../core/sim/state/trace.js';
import { parseOffsetIndex } from '../src/stores/kafka-objects.js';
import { LEASE_KEY, LEASE_TTL_MS, S3LeaseHeld, S3ObjectStore } from '../src/stores/s3-store.js';
import { type Loose, ROOT, loadBundled } from './support/run.js';

// s3rver is CommonJS.
import S3rver from 's3rver';
import { batchIndexEntry, batchIndexLength } from '../core/domain/remote-metadata.js';

const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
const require = createRequire(import.meta.url);
const KafkaDecoder = require('kafkajs/src/protocol/decoder');
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');

const CREDS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
let server: { close: (cb?: () => void) => unknown; run: () => Promise<{ port: number }> };
let endpoint = '';
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tierscope-s3rver-'));
  server = new (S3rver as unknown as new (o: object) => typeof server)({
    port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'tierscope' }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function s3(prefix: string): S3ObjectStore {
  return new S3ObjectStore({ bucket: 'tierscope', prefix, endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
}

async function runOnS3(name: string, store: S3ObjectStore) {
  const k = new Kernel(loadBundled(name), { store });
  await k.settle();
  while (await k.stepAsync()) {
    /* the store's requests complete between steps */
  }
  return k;
}

describe('S3 store (s3rver)', () => {
  test('an object this run wrote that another client deleted is a store failure on GET, not the model\'s NoSuchKey', async () => {
    const store = s3('lost/');
    const put = await store.executeAsync({ op: 'put', store: 'tiered', key: 'x/1.txt', object: { bytes: 3, body: { kind: 'text', text: 'abc' } } });
    expect(put.ok).toBe(true);
    const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
    await client.send(new DeleteObjectCommand({ Bucket: 'tierscope', Key: 'lost/tiered/x/1.txt' }));
    expect(await store.executeAsync({ op: 'get', store: 'tiered', key: 'x/1.txt' })).toMatchObject({ ok: false, error: 'ObjectLost' });
    expect(store.failures.first?.cause).toBe('lost/tiered/x/1.txt in tierscope was written by this run and is gone: another client deleted it (do two runs share this bucket and --prefix?)');
    // A key the run never wrote is the model's answer.
    expect(await store.executeAsync({ op: 'get', store: 'tiered', key: 'x/2.txt' })).toMatchObject({ ok: false, error: 'NoSuchKey' });
    store.destroy();
  });

  test.each(bundled)(
    '%s: the same JSON on memory and S3',
    async (name) => {
      const mem = new Kernel(loadBundled(name));
      mem.runToEnd();
      const store = s3(`${name}/`);
      const k = await runOnS3(name, store);
      store.destroy();
      expect(JSON.stringify(buildRunJson(k))).toBe(JSON.stringify(buildRunJson(mem)));
    },
  );

  test('what is in the bucket is Kafka\'s: RecordBatch v2 (valid CRCs, read by kafkajs too), offset indexes, checkpoints and producer snapshots equal to the model', async () => {
    const store = s3('check/');
    const k = await runOnS3('rlm-upload-and-local-retention', store);
    store.destroy();
    // The same run in memory keeps the model's objects: what S3 holds must read back as them.
    const memStore = new MemoryObjectStore();
    new Kernel(loadBundled('rlm-upload-and-local-retention'), { store: memStore }).runToEnd();
    const model = memStore.snapshot().tiered;
    const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
    const get = async (key: string) => {
      const out = await client.send(new GetObjectCommand({ Bucket: 'tierscope', Key: `check/tiered/${key}` }));
      return new Uint8Array(await out.Body!.transformToByteArray());
    };
    const leader = k.replica('orders-0', 0).log;
    const finished = k.state.partitions['orders-0'].remoteMetadata.filter((x) => x.state === 'COPY_SEGMENT_FINISHED');
    expect(finished.length).toBeGreaterThanOrEqual(2);
    for (const m of finished) {
      const log = await get(m.objectKeys.log);
      const batches = decodeBatches(log);
      expect(batches.every((b) => b.crcValid && b.magic === 2)).toBe(true);
      expect([batches[0].baseOffset, batches[batches.length - 1].lastOffset]).toEqual([m.baseOffset, m.endOffset]);
      expect(batches.reduce((n, b) => n + b.records.length, 0)).toBe(m.endOffset - m.baseOffset + 1);
      // kafkajs, an independent decoder, reads every batch with the same offsets and epochs.
      const d = new KafkaDecoder(Buffer.from(log));
      const seen: Array<[number, number, number]> = [];
      while (d.canReadBytes(12)) {
        const rb = await decodeRecordBatch(d);
        seen.push([Number(rb.firstOffset), Number(rb.records[rb.records.length - 1].offset), rb.partitionLeaderEpoch]);
      }
      expect(seen).toEqual(batches.map((b) => [b.baseOffset, b.lastOffset, b.partitionLeaderEpoch]));
      // The offset index points at each batch.
      const index = parseOffsetIndex(m.objectKeys.offsetIndex, await get(m.objectKeys.offsetIndex));
      expect(index).toEqual({ offsets: batches.map((b) => b.baseOffset), positions: batches.map((b) => b.position) });
      const cp = parseCheckpoint(new TextDecoder().decode(await get(m.objectKeys.leaderEpochCheckpoint)));
      expect(cp).toEqual(checkpointUpTo(leader.leaderEpochs, m.endOffset));
      const snap = decodeProducerSnapshot(await get(m.objectKeys.producerSnapshot));
      const modelSnap = model[m.objectKeys.producerSnapshot].body;
      expect(modelSnap.kind === 'text' && JSON.parse(modelSnap.text)).toEqual(snap);
      expect(snap).toEqual([expect.objectContaining({ producerId: 1, lastOffset: m.endOffset, producerEpoch: 0, currentTxnFirstOffset: -1 })]);
    }
    client.destroy();
  });

  test('a consumer read below LLSO is one GET from its first batch\'s position to the segment\'s end; the bytes sent are the bytes counted', async () => {
    const store = s3('ranged/');
    const k = await runOnS3('kip1023-promoted-follower-remote-reads', store);
    const reads = k.trace.filter((e) => e.type === 'objectStore' && e.op === 'get' && e.purpose === 'consumerRead');
    expect(reads.length).toBeGreaterThan(0);
    expect(store.stats.rangedGets).toBe(reads.length);
    // Every model byte counted is a byte the server sent, and every read runs to the end of its segment.
    const m = k.state.metrics.objectStore;
    expect(store.stats.bytesGot).toBe(m.tiered.bytesGot + m.wal.bytesGot);
    const sizes = new Map(k.state.partitions['orders-0'].remoteMetadata.map((x) => [x.objectKeys.log, x.sizeBytes]));
    for (const r of reads as ObjectStoreEntry[]) expect(r.range?.[1]).toBe(sizes.get(r.key)! - 1);
    store.destroy();
    // A store that did not write the segment reads the same bytes: the model's positions are the file's.
    const seg = k.state.partitions['orders-0'].remoteMetadata.find((x) => x.state === 'COPY_SEGMENT_FINISHED' && batchIndexLength(x) >= 3)!;
    const b1 = batchIndexEntry(seg, 1);
    const cold = s3('ranged/');
    const res = await cold.executeAsync({ op: 'get', store: 'tiered', key: seg.objectKeys.log, range: [b1[2], seg.sizeBytes - 1] });
    expect(res.ok).toBe(true);
    expect(res.bytes).toBe(seg.sizeBytes - b1[2]);
    expect(cold.stats).toMatchObject({ gets: 1, rangedGets: 1, bytesGot: seg.sizeBytes - b1[2] });
    const body = res.object!.body;
    expect(body.kind === 'segment' && body.batches.map((b) => [b.baseOffset, b.lastOffset, b.bytes])).toEqual(Array.from({ length: batchIndexLength(seg) - 1 }, (_, i) => batchIndexEntry(seg, i + 1)).map(([base, last, , bytes]) => [base, last, bytes]));
    cold.destroy();
  });

  test('KIP-1176: WAL objects in the fast-store bucket hold several partitions; followers read only their chunk\'s bytes', async () => {
    const store = new S3ObjectStore({ bucket: 'tierscope', walBucket: 'tierscope-wal', prefix: 'walrange/', endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
    await store.check(true);
    const k = await runOnS3('wal-acks-all-latency', store);
    store.destroy();
    const mem = new Kernel(loadBundled('wal-acks-all-latency'));
    mem.runToEnd();
    expect(JSON.stringify(buildRunJson(k))).toBe(JSON.stringify(buildRunJson(mem)));
    const chunkReads = k.trace.filter((e) => e.type === 'objectStore' && e.purpose === 'walChunk');
    expect(chunkReads.length).toBeGreaterThan(300);
    expect(store.stats.rangedGets).toBe(chunkReads.length);
    // The WAL bucket holds RecordBatch v2 objects of both partitions, back to back.
    const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
    const flush = k.trace.find((e) => e.type === 'wal' && (e as Loose).action === 'flush' && (e as Loose).chunks === 2) as Loose | undefined;
    expect(flush).toBeDefined();
    const listed = await client.send(new GetObjectCommand({ Bucket: 'tierscope-wal', Key: `walrange/wal/${flush!.objectKey as string}` })).catch(() => null);
    expect(listed).not.toBeNull();
    const batches = decodeBatches(new Uint8Array(await listed!.Body!.transformToByteArray()));
    expect(batches.every((b) => b.crcValid)).toBe(true);
    // 20 records of 1 KiB a partition, in producer batches of 16 KiB: 2 batches each.
    expect(batches.map((b) => b.lastOffset - b.baseOffset + 1)).toEqual([16, 4, 16, 4]);
    client.destroy();
  });

  test('latency measured: simulated time follows s3rver; every invariant holds and nothing is lost', async () => {
    const store = s3('measured/');
    const k = new Kernel(loadBundled('steady-state-upload'), { store, latency: 'measured', clock: () => performance.now() });
    await k.settle();
    while (await k.stepAsync()) {
      /* each completion is queued at the time S3 took */
    }
    store.destroy();
    const json = buildRunJson(k);
    expect(json.latency).toEqual({ mode: 'measured', deterministic: false });
    expect(json.violations).toEqual([]);
    const finished = k.state.partitions['orders-0'].remoteMetadata.filter((m) => m.state === 'COPY_SEGMENT_FINISHED');
    expect(finished.length).toBeGreaterThan(10);
  });

  // The server runs in this process: the CLI must run asynchronously, or it would wait for
  // a server whose event loop is blocked.
  const run = (cmd: string, args: string[], env?: NodeJS.ProcessEnv) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(cmd, args, { cwd: ROOT, env: env ?? process.env });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  test('the CLI runs on S3 and prints the same JSON; a missing bucket exits 3 with one line', async () => {
    const env = { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
    const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
    const cli = join(ROOT, 'src', 'cli', 'main.ts');
    const args = ['run', 'kip1023-bootstrap', '--json', '--store', 's3', '--s3-endpoint', endpoint, '--force-path-style'];
    const onS3 = await run(tsx, [cli, ...args, '--bucket', 'tierscope', '--prefix', 'cli/'], env);
    const mem = await run(tsx, [cli, 'run', 'kip1023-bootstrap', '--json']);
    expect(onS3.status).toBe(0);
    expect(onS3.stdout).toBe(mem.stdout);
    const missing = await run(tsx, [cli, ...args, '--bucket', 'no-such-bucket'], env);
    expect(missing.status).toBe(3);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('no-such-bucket');
    expect(missing.stderr).not.toContain('S3RVER');
    // The run released its lease: the next run on the prefix is not refused.
    expect(await readLease('cli/')).toBeNull();
  });

  /** The lease object under `prefix`, or null. */
  async function readLease(prefix: string): Promise<Record<string, unknown> | null> {
    const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
    const got = await client.send(new GetObjectCommand({ Bucket: 'tierscope', Key: `${prefix}${LEASE_KEY}` })).catch(() => null);
    return got === null ? null : (JSON.parse(await got.Body!.transformToString()) as Record<string, unknown>);
  }

  test('a bucket and prefix belong to one run: a second run is refused naming the first; a dead run\'s lease is taken over and said', async () => {
    const a = s3('lease/');
    const b = s3('lease/');
    expect(await a.takeLease(Date.now, 'host-a')).toEqual([]);
    expect(await readLease('lease/')).toMatchObject({ tool: 'tierscope', pid: process.pid, host: 'host-a' });
    await expect(b.takeLease(Date.now, 'host-b')).rejects.toThrow(S3LeaseHeld);
    await expect(b.takeLease(Date.now, 'host-b')).rejects.toThrow(new RegExp(`bucket tierscope and prefix "lease/" are in use by run ${process.pid} on host host-a \\(started .*, lease renewed \\d+ s ago\\): two runs there delete each other's objects; give another --prefix`));
    // Another prefix is another store.
    const c = s3('lease-other/');
    expect(await c.takeLease()).toEqual([]);
    await c.releaseLease();
    // Released: the next run takes it.
    await a.releaseLease();
    expect(await readLease('lease/')).toBeNull();
    expect(await b.takeLease(Date.now, 'host-b')).toEqual([]);
    await b.releaseLease();
    // A lease not renewed for LEASE_TTL_MS: its run died; the next run says so and takes it.
    const dead = s3('lease/');
    await dead.takeLease(() => Date.now() - LEASE_TTL_MS - 1000, 'host-dead');
    dead.destroy();
    const next = s3('lease/');
    const notes = await next.takeLease(Date.now, 'host-next');
    expect(notes).toEqual([expect.stringMatching(/^took over the lease s3:\/\/tierscope\/lease\/\.tierscope-lease of run \d+ on host host-dead \(started .*, lease renewed 6\d s ago\): that run ended without releasing it \(killed\?\)/)]);
    expect(await readLease('lease/')).toMatchObject({ host: 'host-next' });
    await next.releaseLease();
    for (const s of [a, b, c, next]) s.destroy();
  });

  test('the CLI refuses a run on a prefix another run holds: exit 2, one line naming it, nothing written there', async () => {
    const env = { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
    const holder = s3('held/');
    await holder.takeLease(Date.now, 'elsewhere');
    const r = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src', 'cli', 'main.ts'), 'run', 'kip1023-bootstrap', '--store', 's3', '--s3-endpoint', endpoint, '--force-path-style', '--bucket', 'tierscope', '--prefix', 'held/'], env);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^run: --store s3: bucket tierscope and prefix "held/" are in use by run ${process.pid} on host elsewhere`))]);
    expect(r.stdout).toBe('');
    expect(await holder.executeAsync({ op: 'list', store: 'tiered', prefix: '' })).toMatchObject({ ok: true, keys: [] });
    await holder.releaseLease();
    holder.destroy();
  });
});
