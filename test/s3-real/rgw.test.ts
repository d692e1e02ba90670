/**
 * The S3 store against a real S3 implementation that checks signatures: Ceph's RADOS
 * Gateway (test/s3-real/global-setup.ts starts it). Every bundled scenario prints the same
 * JSON as in memory; wrong and unknown keys exit 3 with one line and no secret; a listing
 * of more than one page is whole; the requests the model counts are the requests RGW's
 * usage log counts; a consumer read in the middle of a segment gets the bytes the offset
 * index gives.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, inject, test } from 'vitest';
import { MemoryObjectStore } from '../../core/ports/object-store.js';
import { Kernel } from '../../core/sim/kernel.js';
import { buildRunJson } from '../../core/sim/output.js';
import { S3ObjectStore } from '../../src/stores/s3-store.js';
import { ROOT, cliIn, loadBundled } from '../support/run.js';

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

/** A run on the store; `setupPuts`: the objects the scenario's initial state wrote before the first step. */
async function runOn(name: string, s: S3ObjectStore): Promise<{ k: Kernel; setupPuts: number }> {
  const k = new Kernel(loadBundled(name), { store: s });
  await k.settle();
  const setupPuts = s.stats.puts;
  while (await k.stepAsync()) {
    /* the store's requests complete between steps */
  }
  return { k, setupPuts };
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
  test.each(compared)('%s: PUT, GET, DELETE and LIST counts equal; bytes reported', async (name) => {
    const b = await bucket(`tierscope-usage-${name}`);
    const s = store(b, '');
    const { k, setupPuts } = await runOn(name, s);
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
      `${name}: model PUT ${model.puts} (+${setupPuts} written before the run), GET ${model.gets} (+${s.stats.indexFetches} index), DELETE ${model.deletes}, LIST ${model.lists}; ` +
        `RGW PUT ${server.puts}, GET ${server.gets}, DELETE ${server.deletes}, LIST ${server.lists}; ` +
        `bytes: model put ${model.bytesPut} / RGW received ${server.bytesReceived}, model got ${model.bytesGot} / adapter read ${s.stats.bytesGot} / RGW sent ${server.bytesSent}`,
    );
    expect(server.puts).toBe(model.puts + setupPuts);
    expect(server.gets).toBe(model.gets + s.stats.indexFetches);
    expect(server.deletes).toBe(model.deletes);
    expect(server.lists).toBe(model.lists);
    // Every byte RGW sent is a byte the adapter read: ranges are honoured, nothing more is sent.
    expect(server.bytesSent).toBe(s.stats.bytesGot);
  });
});

describe.skipIf(real.cephDir === null)('Ceph RGW: a consumer read in the middle of a segment', () => {
  test('sends the Range the offset index gives: RGW sends those bytes and no more', async () => {
    const b = await bucket('tierscope-range');
    const writer = store(b, '');
    const { k } = await runOn('kip1023-promoted-follower-remote-reads', writer);
    writer.destroy();
    const seg = k.state.partitions['orders-0'].remoteMetadata.find((m) => m.state === 'COPY_SEGMENT_FINISHED' && m.batchIndex.length >= 4)!;
    // Batches 1 and 2 of the segment: a range inside it, neither at its start nor at its end.
    const [b1, b2] = [seg.batchIndex[1], seg.batchIndex[2]];
    const before = await usage(b);
    const cold = store(b, '');
    const res = await cold.executeAsync({ op: 'get', store: 'tiered', key: seg.objectKeys.log, range: [b1[2], b2[2] + b2[3] - 1], offsets: [b1[0], b2[1]] });
    expect(res.ok).toBe(true);
    expect(cold.stats).toMatchObject({ gets: 1, rangedGets: 1, indexFetches: 1 });
    // The offset index (8 bytes a batch) says where batch 1 starts and batch 3 begins.
    const indexBytes = seg.batchIndex.length * 8;
    const rangeBytes = cold.stats.bytesGot - indexBytes;
    cold.destroy();
    const after = await usage(b);
    expect(after.get_obj.successful_ops - (before.get_obj?.successful_ops ?? 0)).toBe(2);
    expect(after.get_obj.bytes_sent - (before.get_obj?.bytes_sent ?? 0)).toBe(indexBytes + rangeBytes);
    // Two batches' worth of file bytes (headers included), not the rest of the segment.
    expect(rangeBytes).toBeGreaterThanOrEqual(b1[3] + b2[3]);
    expect(rangeBytes).toBeLessThan(((b1[3] + b2[3]) * 102) / 100);
    console.log(`a read of batches [${b1[0]}, ${b2[1]}] in a ${seg.batchIndex.length}-batch segment: RGW sent ${indexBytes} index bytes and a ${rangeBytes}-byte range (the model's bytes: ${b1[3] + b2[3]})`);
  });
});
