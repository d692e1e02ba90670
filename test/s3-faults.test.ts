/**
 * Faults from a real store: a fault-injecting HTTP proxy in front of s3rver answers some
 * requests with 503 SlowDown or 500, resets some connections, and delays others. The SDK's
 * bounded retries absorb the transient ones (the run is then the same as in memory); a
 * request that keeps failing comes back into the model as a failed copy (cleaned up and
 * retried on a later run) or a failed read (the follower backs off; a consumer gets an
 * error). Every invariant holds and no record is lost.
 */
import { type IncomingMessage, type ServerResponse, createServer, request as httpRequest, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { S3ObjectStore } from '../src/stores/s3-store.js';
import { type Loose, loadBundled } from './support/run.js';
import S3rver from 's3rver';

const CREDS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
let s3server: { close: (cb?: () => void) => unknown; run: () => Promise<{ port: number }> };
let proxy: Server;
let s3Port = 0;
let proxyPort = 0;
let dir = '';

/** What the proxy does to the n-th attempt at a given request (method + path). */
type Plan = (key: string, attempt: number) => 'pass' | 'slowDown' | 'error500' | 'reset' | 'slow';
let plan: Plan = () => 'pass';
const attempts = new Map<string, number>();
const injected: Record<string, number> = { slowDown: 0, error500: 0, reset: 0, slow: 0 };

function forward(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const up = httpRequest({ host: '127.0.0.1', port: s3Port, method: req.method, path: req.url, headers: req.headers }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on('error', () => res.destroy());
  up.end(body);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tierscope-s3faults-'));
  s3server = new (S3rver as unknown as new (o: object) => typeof s3server)({
    port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: 'tierscope' }],
  });
  s3Port = (await s3server.run()).port;
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const key = `${req.method} ${req.url?.split('?')[0]}`;
      const n = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, n);
      const action = plan(key, n);
      if (action !== 'pass') injected[action]++;
      if (action === 'slowDown') {
        res.writeHead(503, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      } else if (action === 'error500') {
        res.writeHead(500, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>');
      } else if (action === 'reset') {
        req.socket.destroy();
      } else if (action === 'slow') {
        setTimeout(() => forward(req, res, Buffer.concat(chunks)), 150);
      } else forward(req, res, Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  proxyPort = (proxy.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await new Promise<void>((resolve) => s3server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

async function runThroughProxy(name: string, prefix: string) {
  const store = new S3ObjectStore({ bucket: 'tierscope', prefix, endpoint: `http://127.0.0.1:${proxyPort}`, forcePathStyle: true, region: 'us-east-1', credentials: CREDS, maxAttempts: 3 });
  const k = new Kernel(loadBundled(name), { store });
  await k.settle();
  while (await k.stepAsync()) {
    /* requests complete between steps */
  }
  store.destroy();
  return k;
}

describe('S3 faults through a proxy', () => {
  test('transient 503 SlowDown, 500, resets and slow answers are retried by the SDK: the same run as in memory', async () => {
    // Each request's first attempt meets a fault picked by its path; the second passes.
    const kinds = ['slowDown', 'error500', 'reset', 'slow'] as const;
    plan = (key, attempt) => (attempt === 1 ? kinds[key.length % kinds.length] : 'pass');
    attempts.clear();
    const k = await runThroughProxy('rlm-upload-and-local-retention', 'transient/');
    const mem = new Kernel(loadBundled('rlm-upload-and-local-retention'));
    mem.runToEnd();
    expect(JSON.stringify(buildRunJson(k))).toBe(JSON.stringify(buildRunJson(mem)));
    expect(injected.slowDown + injected.error500 + injected.reset + injected.slow).toBeGreaterThan(4);
  }, 60000);

  test('a PUT that keeps failing becomes a failed copy: cleaned up, retried on a later run, nothing lost', async () => {
    // Every attempt at the first copy of segment 0-49 fails with 500 (more than the SDK's 3 attempts).
    plan = (key) => (key.includes('orders-0-0-1.log') && key.startsWith('PUT') ? 'error500' : 'pass');
    attempts.clear();
    const raw = loadBundled('rlm-upload-and-local-retention');
    // The remote log manager's tasks every 1000 ms; the log retention task at 0 and then every 1000 ms, so
    // local retention runs within the scenario's 5 s (Kafka's defaults: first run at 30 s, then every 5 min).
    const scenario = { ...raw, config: { ...raw.config, 'remote.log.manager.task.interval.ms': 1000, 'log.initial.task.delay.ms': 0, 'log.retention.check.interval.ms': 1000 } };
    const store = new S3ObjectStore({ bucket: 'tierscope', prefix: 'persistent/', endpoint: `http://127.0.0.1:${proxyPort}`, forcePathStyle: true, region: 'us-east-1', credentials: CREDS, maxAttempts: 3 });
    const k = new Kernel(scenario, { store });
    await k.settle();
    while (await k.stepAsync()) {
      /* run */
    }
    store.destroy();
    const json = buildRunJson(k);
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const failed = trace.find((e) => e.type === 'rlm' && e.action === 'copyFailed');
    expect(failed?.error).toContain('S3');
    const states = Object.fromEntries(json.partitions[0].remoteSegments.map((s) => [s.segmentId, s.state]));
    expect(states['orders-0-0-1']).toBe('DELETE_SEGMENT_FINISHED');
    const finished = json.partitions[0].remoteSegments.filter((s) => s.state === 'COPY_SEGMENT_FINISHED').map((s) => [s.baseOffset, s.endOffset]);
    expect(finished).toEqual([[0, 49], [50, 99]]);
    const leader = json.partitions[0].replicas[0];
    expect([leader.logStartOffset, leader.localLogStartOffset, leader.highestOffsetInRemoteStorage]).toEqual([0, 100, 99]);
    expect(attempts.get('PUT /tierscope/persistent/tiered/orders-0/00000000000000000000-orders-0-0-1.log')).toBe(3);
  }, 60000);

  test('a GET that keeps failing during the aux-state build is a failed read: the follower backs off, retries and catches up', async () => {
    // The producer snapshot's GET fails on every attempt (3, the SDK's bound), a persistent fault.
    plan = (key) => (key.startsWith('GET') && key.endsWith('.snapshot') ? 'slowDown' : 'pass');
    attempts.clear();
    const k = await runThroughProxy('kip1023-bootstrap', 'getfail/');
    const json = buildRunJson(k);
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const gets = trace.filter((e) => e.type === 'objectStore' && e.op === 'get' && e.purpose === 'producerSnapshot');
    expect(gets.map((e) => [e.ok, e.error])).toEqual([[false, 'S3 SlowDown (HTTP 503)']]);
    expect(attempts.get(`GET /tierscope/getfail/tiered/${String(gets[0].key)}`)).toBe(3);
    // docs/protocol.md §4.1: not failed, delayed by replica.fetch.backoff.ms with the fetch offset unchanged ...
    const delayed = trace.find((e) => e.type === 'fetcher' && e.action === 'delayed')!;
    expect(delayed).toMatchObject({ broker: 1, delayMs: 1000, rule: 'backoff' });
    expect(String(delayed.reason)).toContain('SlowDown');
    // ... then, its log already restarted at 150, it resumes the classic way and catches up.
    const follower = json.partitions[0].replicas.find((r) => r.broker === 1)!;
    expect(follower).toMatchObject({ logEndOffset: 200, inIsr: true, fetcher: { failed: false } });
  }, 60000);

  test('a consumer\'s ranged GET that keeps failing answers the consumer with an error, nothing else breaks', async () => {
    plan = (key) => (key.startsWith('GET') && key.endsWith('.log') ? 'error500' : 'pass');
    attempts.clear();
    const k = await runThroughProxy('kip1023-promoted-follower-remote-reads', 'readfail/');
    const json = buildRunJson(k);
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const reads = trace.filter((e) => e.type === 'objectStore' && e.purpose === 'consumerRead');
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((e) => e.ok === false && String(e.error).includes('HTTP 500'))).toBe(true);
    expect(trace.some((e) => e.type === 'response' && e.rule === 'remoteReadFailed' && e.error === 'NETWORK_EXCEPTION')).toBe(true);
  }, 60000);
});
