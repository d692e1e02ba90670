/**
 * The S3 store against a real S3 implementation that checks signatures: Ceph's RADOS
 * Gateway (test/s3-real/global-setup.ts starts it). Every bundled scenario prints the same
 * JSON as in memory; wrong and unknown keys exit 3 with one line and no secret; a listing
 * of more than one page is whole; the requests and bytes the model counts are the ones
 * RGW's usage log counts; a consumer read in the middle of a segment asks for the bytes from
 * the position its offset index gives to the segment's end, and RGW sends just those.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, inject, test } from 'vitest';
import { MemoryObjectStore } from '../../core/ports/object-store.js';
import { Kernel } from '../../core/sim/loop/kernel.js';
import { buildRunJson } from '../../core/sim/loop/output.js';
import type { ObjectStoreEntry } from '../../core/sim/state/trace.js';
import { S3LeaseHeld, S3ObjectStore } from '../../src/stores/s3-store.js';
import { ROOT, cliIn, loadBundled } from '../support/run.js';
import { type RemoteSegmentMetadata, batchIndexEntry, batchIndexLength } from '../../core/domain/remote-metadata.js';

/** A remote segment's offset index, entry by entry (listed, or computed from the initial log's runs). */
const indexOf = (m: RemoteSegmentMetadata) => Array.from({ length: batchIndexLength(m) }, (_, i) => batchIndexEntry(m, i));

const real = inject('realS3');
const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
const credentials = { accessKeyId: real.accessKeyId, secretAccessKey: real.secretAccessKey };

function raw(): S3Client {
  return new S3Client({ endpoint: real.endpoint, forcePathStyle: true, region: 'us-east-1', credentials });
}

async function bucket(name: string): Promise<string> {
  const c = raw();
  try {
    await c.send(new CreateBucketCommand({ Bucket: name }));
  } catch (e) {
    if ((e as { name?: string }).name !== 'BucketAlreadyOwnedByYou') throw e;
  } finally {
    c.destroy();
  }
  return name;
}

function store(bucketName: string, prefix: string): S3ObjectStore {
  return new S3ObjectStore({ bucket: bucketName, prefix, endpoint: real.endpoint, forcePathStyle: true, region: 'us-east-1', credentials });
}

/** A run on the store; `setup`: the objects (and their bytes) the scenario's initial state wrote before the first step, which the run's metrics leave out. */
async function runOn(name: string, s: S3ObjectStore): Promise<{ k: Kernel; setup: { puts: number; bytes: number } }> {
  const k = new Kernel(loadBundled(name), { store: s });
  await k.settle();
  const setup = { puts: s.stats.puts, bytes: s.stats.bytesPut };
  while (await k.stepAsync()) {
    /* the store's requests complete between steps */
  }
  return { k, setup };
}

const cli = (args: string[], env: Record<string, string>) => cliIn(args, ROOT, env);

interface Category {
  category: string;
  ops: number;
  successful_ops: number;
  bytes_sent: number;
  bytes_received: number;
}

/** RGW's usage log for one bucket, once it has stopped changing (it is flushed every second). */
async function usage(bucketName: string): Promise<Record<string, Category>> {
  let last = '';
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 1500));
    const r = spawnSync(join(ROOT, 'scripts', 'ceph-rgw.sh'), ['usage', real.cephDir!], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`radosgw-admin usage show failed: ${r.stderr}`);
    const doc = JSON.parse(r.stdout) as { entries: Array<{ buckets: Array<{ bucket: string; categories: Category[] }> }> };
    const out: Record<string, Category> = {};
    for (const e of doc.entries)
      for (const b of e.buckets)
        if (b.bucket === bucketName)
          for (const c of b.categories) {
            const o = (out[c.category] ??= { category: c.category, ops: 0, successful_ops: 0, bytes_sent: 0, bytes_received: 0 });
            o.ops += c.ops;
            o.successful_ops += c.successful_ops;
            o.bytes_sent += c.bytes_sent;
            o.bytes_received += c.bytes_received;
          }
    const now = JSON.stringify(out);
    if (now === last && now !== '{}') return out;
    last = now;
  }
  throw new Error(`RGW's usage log for ${bucketName} did not settle`);
}

describe('Ceph RGW: the same runs as in memory', () => {
  test.each(bundled)('%s: the same JSON on memory and RGW', async (name) => {
    const b = await bucket('tierscope-all');
    const mem = new Kernel(loadBundled(name), { store: new MemoryObjectStore() });
    mem.runToEnd();
    const s = store(b, `${name}/`);
    const { k } = await runOn(name, s);
    s.destroy();
    expect(JSON.stringify(buildRunJson(k))).toBe(JSON.stringify(buildRunJson(mem)));
  });
});

describe('Ceph RGW: credentials', () => {
  test('a wrong secret and an unknown key exit 3 with one line, and print no secret', async () => {
    await bucket('tierscope-auth');
    const args = ['run', 'kip1023-bootstrap', '--store', 's3', '--s3-endpoint', real.endpoint, '--force-path-style', '--bucket', 'tierscope-auth'];
    const cases = [
      { AWS_ACCESS_KEY_ID: real.accessKeyId, AWS_SECRET_ACCESS_KEY: 'not-the-secret-4711' },
      { AWS_ACCESS_KEY_ID: 'NOSUCHKEY', AWS_SECRET_ACCESS_KEY: 'not-the-secret-4711' },
    ];
    for (const env of cases) {
      const r = await cli(args, { ...env, AWS_REGION: 'us-east-1' });
      expect(r.code).toBe(3);
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !/NodeVersionSupportWarning|AWS SDK for JavaScript|node >=22|upgrade to node|a\.co\/|trace-warnings|versions published|security updates|To continue receiving/.test(l));
      expect(lines).toEqual(['--store s3: access to bucket "tierscope-auth" was denied: check the credentials']);
      expect(r.stderr + r.stdout).not.toContain('not-the-secret-4711');
      expect(r.stderr + r.stdout).not.toContain(real.secretAccessKey);
    }
    // The right key works on the same bucket.
    const ok = await cli([...args, '--json'], { AWS_ACCESS_KEY_ID: real.accessKeyId, AWS_SECRET_ACCESS_KEY: real.secretAccessKey, AWS_REGION: 'us-east-1' });
    expect(ok.code).toBe(0);
  });
});

describe('Ceph RGW: listings', () => {
  test('a bucket with more than 1,000 objects is listed whole (NextContinuationToken followed)', async () => {
    const b = await bucket('tierscope-list');
    const c = raw();
    const keys = Array.from({ length: 1234 }, (_, i) => `paged/tiered/orders-0/${String(i).padStart(20, '0')}.log`);
    for (let i = 0; i < keys.length; i += 16) await Promise.all(keys.slice(i, i + 16).map((Key) => c.send(new PutObjectCommand({ Bucket: b, Key, Body: 'x' }))));
    const first = await c.send(new ListObjectsV2Command({ Bucket: b, Prefix: 'paged/' }));
    c.destroy();
    // The server pages at 1,000 keys.
    expect(first.IsTruncated).toBe(true);
    expect(first.Contents).toHaveLength(1000);
    const s = store(b, 'paged/');
    const r = await s.executeAsync({ op: 'list', store: 'tiered', prefix: 'orders-0/' });
    s.destroy();
    expect(r.ok).toBe(true);
    expect(r.keys).toHaveLength(1234);
    expect(r.keys).toEqual(keys.map((k) => k.slice('paged/tiered/'.length)).sort());
  });
});

describe.skipIf(real.cephDir === null)('Ceph RGW: what the model counts against what the server logged', () => {
  // Uploads and retention (PUT, DELETE), remote reads (ranged GET), aux state (GET), the WAL (PUT, ranged GET, DELETE).
  const compared = ['steady-state-upload', 'rlm-upload-and-local-retention', 'kip1023-promoted-follower-remote-reads', 'kip1023-bootstrap', 'wal-steady-state', 'remote-retention-under-bootstrap'];
  test.each(compared)('%s: PUT, GET, DELETE and LIST counts and the bytes each way equal RGW\'s', async (name) => {
    const b = await bucket(`tierscope-usage-${name}`);
    const s = store(b, '');
    const { k, setup } = await runOn(name, s);
    s.destroy();
    const m = k.state.metrics.objectStore;
    const model = {
      puts: m.tiered.puts + m.wal.puts,
      gets: m.tiered.gets + m.wal.gets,
      deletes: m.tiered.deletes + m.wal.deletes,
      lists: m.tiered.lists + m.wal.lists,
      bytesPut: m.tiered.bytesPut + m.wal.bytesPut,
      bytesGot: m.tiered.bytesGot + m.wal.bytesGot,
    };
    const u = await usage(b);
    const server = {
      puts: u.put_obj?.successful_ops ?? 0,
      gets: u.get_obj?.successful_ops ?? 0,
      deletes: u.delete_obj?.successful_ops ?? 0,
      lists: u.list_bucket?.successful_ops ?? 0,
      bytesReceived: u.put_obj?.bytes_received ?? 0,
      bytesSent: u.get_obj?.bytes_sent ?? 0,
    };
    console.log(
      `${name}: model PUT ${model.puts} (+${setup.puts} of the initial state), GET ${model.gets}, DELETE ${model.deletes}, LIST ${model.lists}, ` +
        `bytes put ${model.bytesPut} (+${setup.bytes}), got ${model.bytesGot}; ` +
        `RGW PUT ${server.puts}, GET ${server.gets}, DELETE ${server.deletes}, LIST ${server.lists}, bytes received ${server.bytesReceived}, sent ${server.bytesSent}`,
    );
    expect(server.puts).toBe(model.puts + setup.puts);
    expect(server.gets).toBe(model.gets);
    expect(server.deletes).toBe(model.deletes);
    expect(server.lists).toBe(model.lists);
    expect(server.bytesReceived).toBe(model.bytesPut + setup.bytes);
    expect(server.bytesSent).toBe(model.bytesGot);
    expect(s.stats.bytesGot).toBe(model.bytesGot);
  });
});

describe.skipIf(real.cephDir === null)('Ceph RGW: a consumer read in the middle of a segment', () => {
  test('asks from the position the offset index gives to the segment\'s end: RGW sends those bytes and no more', async () => {
    const b = await bucket('tierscope-range');
    const writer = store(b, '');
    const { k } = await runOn('kip1023-promoted-follower-remote-reads', writer);
    writer.destroy();
    const part = k.state.partitions['orders-0'];
    // The run's own consumer reads: each starts at a batch of the segment's offset index and runs to the segment's last byte.
    const reads = k.trace.filter((e): e is ObjectStoreEntry => e.type === 'objectStore' && e.op === 'get' && e.purpose === 'consumerRead');
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) {
      const m = part.remoteMetadata.find((x) => x.objectKeys.log === r.key)!;
      expect(indexOf(m).map(([, , pos]) => pos)).toContain(r.range![0]);
      expect(r.range![1]).toBe(m.sizeBytes - 1);
    }
    // One such read from batch 2 of a segment, by a store that did not write it, measured on the server.
    const seg = part.remoteMetadata.find((m) => m.state === 'COPY_SEGMENT_FINISHED' && batchIndexLength(m) >= 4)!;
    const b2 = batchIndexEntry(seg, 2);
    const before = await usage(b);
    const cold = store(b, '');
    const res = await cold.executeAsync({ op: 'get', store: 'tiered', key: seg.objectKeys.log, range: [b2[2], seg.sizeBytes - 1] });
    cold.destroy();
    expect(res.ok).toBe(true);
    expect(res.bytes).toBe(seg.sizeBytes - b2[2]);
    expect(res.object?.body.kind === 'segment' && res.object.body.batches.map((x) => x.baseOffset)).toEqual(indexOf(seg).slice(2).map(([base]) => base));
    const after = await usage(b);
    expect(after.get_obj.successful_ops - (before.get_obj?.successful_ops ?? 0)).toBe(1);
    expect(after.get_obj.bytes_sent - (before.get_obj?.bytes_sent ?? 0)).toBe(seg.sizeBytes - b2[2]);
    console.log(`a read from batch 2 of a ${batchIndexLength(seg)}-batch, ${seg.sizeBytes}-byte segment: Range bytes=${b2[2]}-${seg.sizeBytes - 1}; RGW sent ${after.get_obj.bytes_sent - (before.get_obj?.bytes_sent ?? 0)} bytes`);
  });
});

describe('the lease on a real S3 (issue 33: a store belongs to one run at a time)', () => {
  test('two runs taking the same prefix at the same moment: the conditional PUT (If-None-Match: *) lets exactly one in', async () => {
    const b = await bucket('tierscope-lease-race');
    const prefix = `race-${process.pid}/`;
    const one = store(b, prefix);
    const two = store(b, prefix);
    try {
      const got = await Promise.allSettled([one.takeLease(), two.takeLease()]);
      const held = got.filter((g) => g.status === 'fulfilled');
      const refused = got.filter((g): g is PromiseRejectedResult => g.status === 'rejected');
      expect(held).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0].reason).toBeInstanceOf(S3LeaseHeld);
      expect(String(refused[0].reason.message)).toMatch(/in use by run \d+|took the lease .* at the same moment/);
    } finally {
      await one.releaseLease().catch(() => {});
      await two.releaseLease().catch(() => {});
    }
  }, 60_000);
});
