/**
 * The directory store: the same run as in memory (byte-identical JSON) for every bundled
 * scenario, and what lands on disk is Kafka's format: `.log` files of RecordBatch v2 with
 * valid CRC-32C whose offsets and epochs match the remote segment metadata, `.index` files
 * pointing at each batch, and leader-epoch checkpoints that read back as the model's.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkpointUpTo, parseCheckpoint } from '../core/domain/leader-epoch-cache.js';
import { decodeProducerSnapshot } from '../core/format/producer-snapshot.js';
import { decodeBatches } from '../core/format/record-batch.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { FsObjectStore } from '../src/stores/fs-store.js';
import { ROOT, loadBundled } from './support/run.js';
import { batchIndexEntry, batchIndexLength } from '../core/domain/remote-metadata.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));

function runOn(name: string, store?: FsObjectStore) {
  const k = new Kernel(loadBundled(name), store ? { store } : {});
  k.runToEnd();
  return k;
}

describe('fs store', () => {
  test.each(bundled)('%s: the same JSON on memory and fs', (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-fs-'));
    dirs.push(dir);
    const a = JSON.stringify(buildRunJson(runOn(name)));
    const b = JSON.stringify(buildRunJson(runOn(name, new FsObjectStore(dir))));
    expect(b).toBe(a);
  });

  test('segments on disk are RecordBatch v2 with valid CRCs matching the metadata; indexes and checkpoints read back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-fs-'));
    dirs.push(dir);
    const k = runOn('steady-state-upload', new FsObjectStore(dir));
    const part = k.state.partitions['orders-0'];
    const finished = part.remoteMetadata.filter((m) => m.state === 'COPY_SEGMENT_FINISHED');
    expect(finished.length).toBeGreaterThan(20);
    const leaderEpochs = k.replica('orders-0', 0).log.leaderEpochs;
    for (const m of finished) {
      const log = new Uint8Array(readFileSync(join(dir, 'tiered', m.objectKeys.log)));
      const batches = decodeBatches(log);
      expect(batches.every((b) => b.crcValid && b.magic === 2)).toBe(true);
      expect(batches[0].baseOffset).toBe(m.baseOffset);
      expect(batches[batches.length - 1].lastOffset).toBe(m.endOffset);
      for (const b of batches) expect(b.partitionLeaderEpoch).toBe(0);
      expect(batches.reduce((n, b) => n + b.records.length, 0)).toBe(m.endOffset - m.baseOffset + 1);
      // The offset index: one entry per batch, (relative offset, position of the batch).
      const index = new DataView(new Uint8Array(readFileSync(join(dir, 'tiered', m.objectKeys.offsetIndex))).buffer);
      expect(index.byteLength).toBe(batches.length * 8);
      batches.forEach((b, i) => {
        expect(index.getInt32(i * 8)).toBe(b.baseOffset - m.baseOffset);
        expect(index.getInt32(i * 8 + 4)).toBe(b.position);
      });
      const cp = parseCheckpoint(readFileSync(join(dir, 'tiered', m.objectKeys.leaderEpochCheckpoint), 'utf8'));
      expect(cp).toEqual(checkpointUpTo(leaderEpochs, m.endOffset));
      // Kafka's producer snapshot file: the one producer, as of the segment's end.
      const snap = decodeProducerSnapshot(new Uint8Array(readFileSync(join(dir, 'tiered', m.objectKeys.producerSnapshot))));
      expect(snap).toEqual([{ producerId: 1, producerEpoch: 0, lastSequence: m.endOffset, lastOffset: m.endOffset, offsetDelta: batches[batches.length - 1].records.length - 1, timestamp: expect.any(Number), coordinatorEpoch: -1, currentTxnFirstOffset: -1 }]);
    }
  });

  test('a consumer read below LLSO reads from its first batch to the end of the .log, and the file is as big as the model says', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-fs-'));
    dirs.push(dir);
    const store = new FsObjectStore(dir);
    const k = runOn('kip1023-promoted-follower-remote-reads', store);
    const reads = k.trace.filter((e) => e.type === 'objectStore' && e.op === 'get' && e.purpose === 'consumerRead');
    expect(reads.length).toBeGreaterThan(0);
    expect(store.stats.rangedGets).toBe(reads.length);
    const seg = k.state.partitions['orders-0'].remoteMetadata.find((m) => m.state === 'COPY_SEGMENT_FINISHED' && batchIndexLength(m) >= 3)!;
    const size = statSync(join(dir, 'tiered', seg.objectKeys.log)).size;
    expect(size).toBe(seg.sizeBytes);
    // RemoteStorageManager.fetchLogSegment(metadata, startPosition): from batch 1's position to the end.
    const before = store.stats.bytesGot;
    const b = batchIndexEntry(seg, 1);
    const res = store.execute({ op: 'get', store: 'tiered', key: seg.objectKeys.log, range: [b[2], size - 1] });
    expect(res.ok && res.bytes).toBe(size - b[2]);
    expect(store.stats.bytesGot - before).toBe(size - b[2]);
    expect(res.object?.body.kind === 'segment' && res.object.body.batches.map((x) => [x.baseOffset, x.bytes])).toEqual(Array.from({ length: batchIndexLength(seg) - 1 }, (_, i) => batchIndexEntry(seg, i + 1)).map(([base, , , bytes]) => [base, bytes]));
  });

  test('a damaged object is a failed GET naming the object and the damage, not a crash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-fs-'));
    dirs.push(dir);
    const store = new FsObjectStore(dir);
    const k = runOn('rlm-upload-and-local-retention', store);
    const m = k.state.partitions['orders-0'].remoteMetadata.find((x) => x.state === 'COPY_SEGMENT_FINISHED')!;
    for (const key of [m.objectKeys.log, m.objectKeys.producerSnapshot]) {
      const p = join(dir, 'tiered', key);
      const bytes = readFileSync(p);
      bytes[bytes.length - 2] ^= 0xff;
      writeFileSync(p, bytes);
      const res = store.execute({ op: 'get', store: 'tiered', key });
      expect(res.ok).toBe(false);
      expect(res.error).toMatch(new RegExp(`^CorruptObject: ${key.replace(/[.]/g, '[.]')}: .*CRC-32C mismatch`));
    }
  });
});

describe('a store belongs to one run at a time', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), 'tierscope-lock-'));
    dirs.push(d);
    return d;
  };

  test('a second store on a directory a live run holds is refused, naming the holder; after release it opens', () => {
    const dir = fresh();
    const first = new FsObjectStore(dir);
    expect(() => new FsObjectStore(dir)).toThrow(new RegExp(`is in use by another run \\(process ${process.pid} on .*\\): two runs on one store would delete each other's objects`));
    first.release();
    const second = new FsObjectStore(dir);
    expect(second.notes).toEqual([]);
    second.release();
  });

  test("a lock left by a run that died is reported and taken over, never silently", () => {
    const dir = fresh();
    new FsObjectStore(dir).release();
    // A process that has ended: its pid is free (the child has been waited for).
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(dir, '.tierscope-store.lock'), JSON.stringify({ pid: dead, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' }) + '\n');
    const store = new FsObjectStore(dir);
    expect(store.notes).toEqual([`${dir}: the run that held this store (process ${dead} on ${hostname()}, since 2026-01-01T00:00:00.000Z) ended without releasing it (killed?); its objects are cleared now`]);
    expect(JSON.parse(readFileSync(join(dir, '.tierscope-store.lock'), 'utf8')).pid).toBe(process.pid);
    store.release();
    expect(readdirSync(dir)).not.toContain('.tierscope-store.lock');
  });

  test('an object this run wrote that is gone on a GET is a store failure, not the answer NoSuchKey', () => {
    const dir = fresh();
    const store = new FsObjectStore(dir);
    const object = { bytes: 3, body: { kind: 'text' as const, text: 'abc' } };
    expect(store.execute({ op: 'put', store: 'tiered', key: 'x/1.txt', object }).ok).toBe(true);
    rmSync(join(dir, 'tiered', 'x', '1.txt'));
    const r = store.execute({ op: 'get', store: 'tiered', key: 'x/1.txt' });
    expect(r).toMatchObject({ ok: false, error: 'ObjectLost' });
    expect(store.failures.first?.cause).toBe('tiered/x/1.txt was written by this run and is gone: another process deleted it');
    // One it never wrote is the model's answer.
    expect(store.execute({ op: 'get', store: 'tiered', key: 'x/2.txt' })).toMatchObject({ ok: false, error: 'NoSuchKey' });
    store.release();
  });
});
