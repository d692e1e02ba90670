/**
 * The S3 store against a real S3 endpoint (s3rver on 127.0.0.1, started here and stopped
 * afterwards): the same JSON as in memory, objects in Kafka's format in the bucket, and
 * bad settings reported in one line with exit code 3.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeBatches } from '../core/format/record-batch.js';
import { Kernel } from '../core/sim/kernel.js';
import { buildRunJson } from '../core/sim/output.js';
import { S3ObjectStore } from '../src/stores/s3-store.js';
import { ROOT, loadBundled } from './support/run.js';

// s3rver is CommonJS.
import S3rver from 's3rver';

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
  test.each(['kip1023-leader-epochs', 'rlm-upload-and-local-retention', 'kip1023-remote-storage-error', 'remote-retention-under-bootstrap'])(
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

  test('the uploaded segments in the bucket are RecordBatch v2 with valid CRCs', async () => {
    const store = s3('check/');
    const k = await runOnS3('rlm-upload-and-local-retention', store);
    store.destroy();
    const client = new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: CREDS });
    for (const m of k.state.partitions['orders-0'].remoteMetadata.filter((x) => x.state === 'COPY_SEGMENT_FINISHED')) {
      const out = await client.send(new GetObjectCommand({ Bucket: 'tierscope', Key: `check/tiered/${m.objectKeys.log}` }));
      const batches = decodeBatches(new Uint8Array(await out.Body!.transformToByteArray()));
      expect(batches.every((b) => b.crcValid)).toBe(true);
      expect([batches[0].baseOffset, batches[batches.length - 1].lastOffset]).toEqual([m.baseOffset, m.endOffset]);
    }
    client.destroy();
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
  });
});
