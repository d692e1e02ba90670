/**
 * An S3 endpoint that fails under a run, as a user meets it: the CLI (spawned as a user runs
 * it) against an endpoint nothing listens on, one that accepts connections and never
 * answers, a proxy that stops answering after some requests, and an s3rver killed in the
 * middle of a run. Each ends the run within seconds with exit 3 and one line naming the
 * cause (the connection refused by host:port, the timeout); `--store-failures fault` lets
 * the run go on and counts the failures. A `--prefix` that would leave the bucket's folder
 * is refused (exit 2) before any request.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { badRegion } from '../src/cli/run.js';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import { type Server as NetServer, type Socket, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { S3ObjectStore } from '../src/stores/s3-store.js';
import { ROOT } from './support/run.js';
import S3rver from 's3rver';

const ENV = { ...process.env, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');

let tmp = '';
let s3server: { close: (cb?: () => void) => unknown; run: () => Promise<{ port: number }> };
let s3Port = 0;

/** A TCP server that accepts connections, reads what comes and never answers. */
let silent: NetServer;
let silentPort = 0;
const silentSockets = new Set<Socket>();
let silentConnections = 0;

/** An HTTP proxy to s3rver that forwards the first `proxyBudget` requests and holds the rest unanswered. */
let proxy: Server;
let proxyPort = 0;
let proxyBudget = Infinity;
let proxySeen = 0;
const held: ServerResponse[] = [];

/** A port nothing listens on: taken, then let go. */
let deadPort = 0;

function listen(server: Server | NetServer): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'tierscope-s3failures-'));
  s3server = new (S3rver as unknown as new (o: object) => typeof s3server)({
    port: 0, address: '127.0.0.1', silent: true, directory: join(tmp, 'inproc'), configureBuckets: [{ name: 'tierscope' }],
  });
  s3Port = (await s3server.run()).port;
  silent = createNetServer((socket) => {
    silentConnections++;
    silentSockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => silentSockets.delete(socket));
  });
  silentPort = await listen(silent);
  proxy = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (++proxySeen > proxyBudget) return void held.push(res);
      const up = httpRequest({ host: '127.0.0.1', port: s3Port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  proxyPort = await listen(proxy);
  const probe = createNetServer();
  deadPort = await listen(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  for (const res of held) res.destroy();
  for (const s of silentSockets) s.destroy();
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await new Promise<void>((resolve) => s3server.close(() => resolve()));
  rmSync(tmp, { recursive: true, force: true });
});

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** The CLI as a user runs it; `onStart` sees the child (to time a kill against it). */
function cli(args: string[], onStart?: (p: ChildProcess) => void): Promise<Ran> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(TSX, [CLI, ...args], { cwd: ROOT, env: ENV });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (status) => resolve({ status, stdout, stderr, seconds: (performance.now() - t0) / 1000 }));
    onStart?.(p);
  });
}

const s3Args = (port: number, ...more: string[]) => ['--store', 's3', '--bucket', 'tierscope', '--s3-endpoint', `http://127.0.0.1:${port}`, '--force-path-style', ...more];

/** steady-state-upload, run for longer: a PUT every few milliseconds for tens of seconds on s3rver. */
function longScenario(untilMs: number): string {
  const file = join(tmp, `steady-${untilMs}.yaml`);
  writeFileSync(file, readFileSync(join(ROOT, 'scenarios', 'steady-state-upload.yaml'), 'utf8').replace(/^until: \d+$/m, `until: ${untilMs}`));
  return file;
}

/** An s3rver in a process of its own, so that it can be killed like a server that dies. */
async function s3rverProcess(): Promise<{ child: ChildProcess; port: number; dir: string }> {
  const dir = mkdtempSync(join(tmp, 'child-'));
  const code = `import S3rver from 's3rver';
const s = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'tierscope' }] });
const { port } = await s.run();
process.stdout.write(port + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (c) => reject(new Error(`s3rver exited with ${c}`)));
  });
  return { child, port, dir };
}

/** Objects s3rver has written so far. */
function objectsIn(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('._S3rver_object')).length;
  } catch {
    return 0;
  }
}

/** Kills `child` once `dir` holds `n` objects; resolves with the count at the kill. */
function killAfterObjects(child: ChildProcess, dir: string, n: number): Promise<number> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      const seen = objectsIn(dir);
      if (seen >= n) {
        clearInterval(poll);
        child.kill('SIGKILL');
        resolve(seen);
      }
    }, 5);
  });
}

const oneLine = (s: string) => s.trim().split('\n');

describe('the bucket check at start', () => {
  test('an endpoint nothing listens on: exit 3 with one line naming the refused connection, in seconds', async () => {
    const r = await cli(['run', 'kip1023-bootstrap', '--json', ...s3Args(deadPort)]);
    expect(r.status).toBe(3);
    expect(oneLine(r.stderr)).toEqual([`--store s3: cannot reach S3 for bucket "tierscope": connection refused by 127.0.0.1:${deadPort} (ECONNREFUSED) (3 attempts)`]);
    expect(r.stdout).toBe('');
  }, 30000);

  test('an endpoint that accepts and never answers: exit 3 with one line naming the timeout, after --s3-timeout-ms', async () => {
    const before = silentConnections;
    const r = await cli(['run', 'kip1023-bootstrap', '--json', ...s3Args(silentPort, '--s3-timeout-ms', '1500')]);
    expect(r.status).toBe(3);
    expect(oneLine(r.stderr)).toEqual([`--store s3: cannot reach S3 for bucket "tierscope": timed out after 1500 ms waiting for 127.0.0.1:${silentPort} (no answer)`]);
    expect(silentConnections).toBeGreaterThan(before);
    // It waited the timeout out (a lower bound holds on any machine; that it ends at all is
    // the test's own timeout: no verdict here depends on how fast the machine is).
    expect(r.seconds).toBeGreaterThan(1.5);
    expect(r.stderr).not.toContain('S3RVER');
  }, 30000);
});

describe('an endpoint that fails during the run', () => {
  test('a proxy that stops answering after some requests: exit 3 within the timeout, the line names it; the JSON still prints', async () => {
    proxySeen = 0;
    // 40 of the model's requests, after the run's lease (a GET and a conditional PUT).
    proxyBudget = 42;
    const r = await cli(['run', 'steady-state-upload', '--json', ...s3Args(proxyPort, '--prefix', 'stall/', '--s3-timeout-ms', '2000')]);
    proxyBudget = Infinity;
    expect(r.status).toBe(3);
    const lines = oneLine(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^run: the s3 store failed at t=\\d+ms: (PUT|GET|DELETE|LIST) tiered/\\S+: timed out after 2000 ms waiting for 127\\.0\\.0\\.1:${proxyPort} \\(no answer\\); the run stopped`));
    const json = JSON.parse(r.stdout) as { storeFailures: { count: number; first: { cause: string } } };
    expect(json.storeFailures.count).toBe(1);
    expect(json.storeFailures.first.cause).toContain('timed out after 2000 ms');
  }, 40000);

  test('s3rver killed mid-run: exit 3, the line names the refused connection; the trace entry says so in short', async () => {
    const server = await s3rverProcess();
    const file = longScenario(400_000);
    let atKill = 0;
    const r = await cli(['run', file, '--json', ...s3Args(server.port)], (p) => {
      void killAfterObjects(server.child, server.dir, 20).then((n) => (atKill = n));
      p.once('close', () => server.child.kill('SIGKILL'));
    });
    expect(atKill).toBeGreaterThanOrEqual(20);
    expect(r.status).toBe(3);
    const lines = oneLine(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^run: the s3 store failed at t=\\d+ms: (PUT|GET|DELETE|LIST) tiered/\\S+: connection refused by 127\\.0\\.0\\.1:${server.port} \\(ECONNREFUSED\\)`));
    const json = JSON.parse(r.stdout) as { endMs: number; trace: Array<{ ok?: boolean; error?: string; type: string }>; storeFailures: { count: number } };
    // The run stopped at the failure, long before the scenario's end.
    expect(json.endMs).toBeLessThan(400_000);
    // The requests of the step that failed (a segment's four objects go up together), no more.
    const failed = json.trace.filter((e) => e.type === 'objectStore' && e.ok === false);
    expect(json.storeFailures.count).toBeGreaterThanOrEqual(1);
    expect(failed).toHaveLength(json.storeFailures.count);
    expect(failed.every((e) => e.error === 'S3 connection refused (ECONNREFUSED)')).toBe(true);
  }, 60000);

  test('s3rver killed mid-run with --store-failures fault: the run goes on to its end, the JSON counts the failures', async () => {
    const server = await s3rverProcess();
    const file = longScenario(40_000);
    let atKill = 0;
    const r = await cli(['run', file, '--json', '--store-failures', 'fault', ...s3Args(server.port)], (p) => {
      void killAfterObjects(server.child, server.dir, 20).then((n) => (atKill = n));
      p.once('close', () => server.child.kill('SIGKILL'));
    });
    expect(atKill).toBeGreaterThanOrEqual(20);
    expect([0, 129]).toContain(r.status);
    const json = JSON.parse(r.stdout) as { endMs: number; storeFailures: { count: number; first: { cause: string } } };
    expect(json.endMs).toBe(40_000);
    expect(json.storeFailures.count).toBeGreaterThan(0);
    expect(json.storeFailures.first.cause).toMatch(/connection (refused|reset) by 127\.0\.0\.1:\d+/);
  }, 90000);
});

describe('--prefix', () => {
  test.each([['../x', '".." segment'], ['/x', 'starts with /'], ['a//b', 'empty segment'], ['a/./b', '"." segment'], ['a\\b', 'backslash'], ['a\tb', 'control character']])(
    '--prefix %j: exit 2 naming --prefix, no request made',
    async (prefix, why) => {
      const before = silentConnections;
      const r = await cli(['run', 'kip1023-bootstrap', '--json', ...s3Args(silentPort, '--prefix', prefix, '--s3-timeout-ms', '1000')]);
      expect(r.status).toBe(2);
      const lines = oneLine(r.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^tierscope: --prefix /);
      expect(lines[0]).toContain(why);
      expect(silentConnections).toBe(before);
    },
    30000,
  );
});

describe('--s3-timeout-ms', () => {
  test.each([
    [['--s3-timeout-ms', '1000'], /^tierscope: --s3-timeout-ms applies to --store s3 only \(this run uses --store memory\)/],
    [['--store', 's3', '--bucket', 'b', '--s3-timeout-ms', '0'], /^tierscope: --s3-timeout-ms expects a whole number of milliseconds from 1 to 86400000, got "0"/],
    [['--store', 's3', '--bucket', 'b', '--s3-timeout-ms', '2s'], /^tierscope: --s3-timeout-ms expects a whole number of milliseconds from 1 to 86400000, got "2s"/],
  ])('run %j: exit 2, one line', async (flags, msg) => {
    const r = await cli(['run', 'kip1023-bootstrap', ...flags]);
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(msg);
  }, 30000);
});

describe('AWS_REGION the SDK cannot use', () => {
  test('unit: empty, blank and odd values are named; unset and real names pass', () => {
    expect(badRegion(undefined)).toBeNull();
    expect(badRegion('eu-west-1')).toBeNull();
    expect(badRegion('default')).toBeNull();
    expect(badRegion('')).toMatch(/^AWS_REGION is set but empty/);
    expect(badRegion('  ')).toMatch(/^AWS_REGION is set but empty/);
    expect(badRegion(' x')).toBe(`AWS_REGION " x" is not a region name (letters, digits and '-', e.g. eu-west-1)`);
  });

  test('run with AWS_REGION= set empty: exit 2 and one line before any request (it was an internal error, exit 70)', async () => {
    const r = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
      const p = spawn(TSX, [CLI, 'run', 'kip1023-bootstrap', ...s3Args(deadPort)], { cwd: ROOT, env: { ...ENV, AWS_REGION: '' } });
      let stderr = '';
      p.stderr.on('data', (d) => (stderr += d));
      p.stdout.resume();
      p.on('close', (status) => resolve({ status, stderr }));
    });
    expect(r.status).toBe(2);
    expect(oneLine(r.stderr)).toEqual(['tierscope: AWS_REGION is set but empty: unset it (S3 in us-east-1 is then used) or give a region, e.g. AWS_REGION=eu-west-1. See --help.']);
  }, 30000);
});

describe('what a failure records', () => {
  // A fake S3 that answers each request as the test says.
  let answer: (res: ServerResponse) => void = () => {};
  let hits = 0;
  let fake: Server;
  let fakePort = 0;
  beforeAll(async () => {
    fake = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () => answer(res));
    });
    fakePort = await listen(fake);
  });
  afterAll(async () => {
    fake.closeAllConnections();
    await new Promise<void>((resolve) => fake.close(() => resolve()));
  });
  const xml = (status: number, code: string, message: string) => (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
  };
  const host = () => `127.0.0.1:${fakePort}`;

  // A throttled request's pauses between attempts take up to a few seconds: 10 s leaves room for them.
  test.each<[string, (res: ServerResponse) => void, string, () => string, number, number?]>([
    ['503 SlowDown, retried', xml(503, 'SlowDown', 'Please reduce your request rate.'), 'S3 SlowDown (HTTP 503)', () => `HTTP 503 from ${host()}, SlowDown: Please reduce your request rate. (3 attempts)`, 3],
    ['403 AccessDenied, not retried', xml(403, 'AccessDenied', 'Access Denied'), 'S3 AccessDenied (HTTP 403)', () => `HTTP 403 from ${host()}, AccessDenied: Access Denied`, 1],
    [
      'a message with a credential and a signature in it',
      xml(403, 'SignatureDoesNotMatch', 'does not match. Credential=AKIAABCDEFGHIJKLMNOP/20240101/us-east-1/s3/aws4_request Signature=abcdef0123'),
      'S3 SignatureDoesNotMatch (HTTP 403)',
      () => `HTTP 403 from ${host()}, SignatureDoesNotMatch: does not match. Credential=… Signature=…`,
      1,
    ],
    ['a proxy\'s 502 page, no S3 error code', (res) => (res.writeHead(502, { 'content-type': 'text/html' }), res.end('<html>Bad Gateway</html>')), 'S3 HTTP 502', () => `HTTP 502 from ${host()}, no S3 error code (3 attempts)`, 3],
    ['a body that stops coming', (res) => (res.writeHead(200, { 'content-length': '1000' }), res.write('abc')), 'S3 timeout after 1000 ms', () => `timed out after 1000 ms waiting for ${host()} (the body of its answer stopped coming)`, 1, 1000],
  ])('%s', async (_, a, error, cause, attempts, timeoutMs = 10000) => {
    answer = a;
    hits = 0;
    const store = new S3ObjectStore({ bucket: 'b', endpoint: `http://${host()}`, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'AKIAABCDEFGHIJKLMNOP', secretAccessKey: 'S3RVER' }, timeoutMs });
    const r = await store.executeAsync({ op: 'get', store: 'tiered', key: 'orders-0/00000000000000000000-orders-0-0-1.snapshot' });
    store.destroy();
    expect(r).toEqual({ ok: false, bytes: 0, error });
    expect(store.failures.first).toEqual({ op: 'GET', store: 'tiered', key: 'orders-0/00000000000000000000-orders-0-0-1.snapshot', cause: cause() });
    expect(hits).toBe(attempts);
  }, 20000);

  test('a key that would leave the prefix\'s folder is refused unsent', async () => {
    hits = 0;
    const store = new S3ObjectStore({ bucket: 'b', endpoint: `http://${host()}`, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const r = await store.executeAsync({ op: 'delete', store: 'tiered', key: 'orders-0/../../etc' });
    store.destroy();
    expect(r).toEqual({ ok: false, bytes: 0, error: 'S3 unsafe key' });
    expect(store.failures.first?.cause).toBe('refused to send: the key has a ".." segment');
    expect(hits).toBe(0);
    expect(() => new S3ObjectStore({ bucket: 'b', prefix: '../up/' })).toThrow('prefix "../up/" has a ".." segment');
  });
});
