/**
 * Benchmark: segment uploads through TierScope's S3 adapter beside the same uploads sent
 * straight from the AWS SDK, in the same run, against s3rver on 127.0.0.1.
 * Both sides warm up first (uncounted rounds); then each round uploads every segment both
 * ways, one after the other, the order alternating segment by segment, so machine noise and
 * ordering hit both alike. The figure is the ratio of median throughputs (budget: adapter
 * >= 0.9 x raw). `--json` prints one JSON document. bench/run.ts runs this file for figure 7.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { RecordBatch } from '../core/domain/partition-log.js';
import type { StoredObject } from '../core/ports/object-store.js';
import { encodeObject } from '../src/stores/kafka-objects.js';
import { S3ObjectStore } from '../src/stores/s3-store.js';
import { hideNodeVersionWarning } from '../src/node-warnings.js';

const RECORDS = 1000; // 1000 records of 1 KiB: about 1 MiB a segment
const CREDS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function segment(base: number): StoredObject {
  const batches: RecordBatch[] = [];
  for (let o = base; o < base + RECORDS; o += 16) {
    batches.push({ baseOffset: o, lastOffset: Math.min(o + 15, base + RECORDS - 1), leaderEpoch: 0, producerId: 1, baseSequence: o, bytes: 16 * 1024, appendedMs: 0 });
  }
  return { bytes: batches.reduce((n, b) => n + b.bytes, 0), body: { kind: 'segment', batches } };
}

const key = (i: number) => `orders-0/${String(i * RECORDS).padStart(20, '0')}-bench.log`;

export interface S3UploadOptions {
  /** Segments uploaded per round (each about 1 MiB). */
  segments?: number;
  /** Rounds not counted: JIT and connection warm-up on both sides. */
  warmup?: number;
  /** Counted rounds (odd, for a median). */
  rounds?: number;
}

export interface S3UploadFigures {
  name: string;
  segments: number;
  bytesPerRound: number;
  warmupRounds: number;
  rounds: number;
  adapterMiBps: number;
  rawMiBps: number;
  /** Median raw time / median adapter time: the adapter's throughput as a share of the raw SDK's. */
  ratio: number;
  budget: number;
}

export async function measureS3Upload(options: S3UploadOptions = {}): Promise<S3UploadFigures> {
  const SEGMENTS = options.segments ?? 16;
  const WARMUP = options.warmup ?? 2;
  const ROUNDS = options.rounds ?? 9;
  const dir = mkdtempSync(join(tmpdir(), 'tierscope-bench-'));
  const server = new (S3rver as unknown as new (o: object) => { run(): Promise<{ port: number }>; close(cb?: () => void): void })({
    port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'bench' }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const adapter = new S3ObjectStore({ bucket: 'bench', prefix: 'adapter/', endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
  const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
  const objects = Array.from({ length: SEGMENTS }, (_, i) => segment(i * RECORDS));
  // The raw side sends bytes encoded beforehand; the adapter encodes as it goes.
  const encoded = objects.map((o, i) => encodeObject(key(i), o));
  const bytes = encoded.reduce((n, b) => n + b.length, 0);
  const adapterMs: number[] = [];
  const rawMs: number[] = [];
  const adapterPut = async (i: number): Promise<number> => {
    const t = performance.now();
    const res = await adapter.executeAsync({ op: 'put', store: 'tiered', key: key(i), object: objects[i] });
    if (!res.ok) throw new Error(`adapter put failed: ${res.error}`);
    return performance.now() - t;
  };
  const rawPut = async (i: number): Promise<number> => {
    const t = performance.now();
    await client.send(new PutObjectCommand({ Bucket: 'bench', Key: `raw/tiered/${key(i)}`, Body: encoded[i] }));
    return performance.now() - t;
  };
  // A round uploads every segment both ways, segment by segment, the order alternating by
  // segment and round: a slow moment of the machine (disk, other processes) falls on both
  // sides of the same segment rather than on one side's whole round.
  const round = async (r: number): Promise<[number, number]> => {
    let a = 0;
    let w = 0;
    for (let i = 0; i < SEGMENTS; i++) {
      if ((i + r) % 2 === 0) {
        a += await adapterPut(i);
        w += await rawPut(i);
      } else {
        w += await rawPut(i);
        a += await adapterPut(i);
      }
    }
    return [a, w];
  };
  for (let r = 0; r < WARMUP; r++) await round(r);
  for (let r = 0; r < ROUNDS; r++) {
    const [a, w] = await round(r);
    adapterMs.push(a);
    rawMs.push(w);
  }
  adapter.destroy();
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mbps = (ms: number) => bytes / 1048576 / (ms / 1000);
  return {
    name: 's3 segment upload: adapter vs raw SDK (s3rver)',
    segments: SEGMENTS,
    bytesPerRound: bytes,
    warmupRounds: WARMUP,
    rounds: ROUNDS,
    adapterMiBps: +mbps(median(adapterMs)).toFixed(1),
    rawMiBps: +mbps(median(rawMs)).toFixed(1),
    ratio: +(median(rawMs) / median(adapterMs)).toFixed(3),
    budget: 0.9,
  };
}

async function main() {
  const json = process.argv.includes('--json');
  // bench/run.ts passes its sizes as a JSON argument.
  const spec = process.argv.slice(2).find((a) => a.startsWith('{'));
  const result = await measureS3Upload(spec === undefined ? {} : (JSON.parse(spec) as S3UploadOptions));
  const ok = result.ratio >= result.budget;
  if (json) console.log(JSON.stringify({ ...result, ok }));
  else {
    console.log(`${result.name}`);
    console.log(`  adapter ${result.adapterMiBps} MiB/s, raw SDK ${result.rawMiBps} MiB/s, ratio ${result.ratio} (budget >= ${result.budget}) ${ok ? 'ok' : 'MISSED'}`);
  }
  process.exitCode = ok ? 0 : 1;
}

if (process.argv[1]?.endsWith('s3-upload.ts')) {
  hideNodeVersionWarning();
  void main();
}
