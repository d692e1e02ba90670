/**
 * Starts the real S3 store of the suite: a one-node Ceph cluster with RGW
 * (scripts/ceph-rgw.sh), unless S3_REAL_ENDPOINT names one already running, and stops it
 * by PID when the suite ends, whether its tests passed or failed (and on SIGINT/SIGTERM).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export interface RealS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The Ceph cluster's directory, for its usage log (absent: an endpoint of the user's). */
  cephDir: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    realS3: RealS3;
  }
}

const ROOT = join(import.meta.dirname, '..', '..');

/** Kills what the cluster's pids file names (synchronously: usable from an exit handler). */
function killAll(dir: string): void {
  const file = join(dir, 'pids');
  if (!existsSync(file)) return;
  for (const pid of readFileSync(file, 'utf8').split('\n').map(Number).filter((n) => n > 0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

export default function setup(project: TestProject): () => void {
  if (process.env.S3_REAL_ENDPOINT) {
    project.provide('realS3', {
      endpoint: process.env.S3_REAL_ENDPOINT,
      accessKeyId: process.env.S3_REAL_ACCESS_KEY ?? '',
      secretAccessKey: process.env.S3_REAL_SECRET_KEY ?? '',
      cephDir: process.env.S3_REAL_CEPH_DIR ?? null,
    });
    return () => {};
  }
  const dir = mkdtempSync(join(tmpdir(), 'tierscope-ceph-'));
  const script = join(ROOT, 'scripts', 'ceph-rgw.sh');
  const stop = () => {
    spawnSync(script, ['stop', dir], { stdio: 'ignore' });
    killAll(dir);
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (sig: NodeJS.Signals) => {
    stop();
    process.exit(sig === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', () => killAll(dir));
  const started = Date.now();
  const r = spawnSync(script, ['start', dir], { encoding: 'utf8', env: { ...process.env, CEPH_RGW_ACCESS_KEY: 'TIERSCOPEKEY', CEPH_RGW_SECRET_KEY: 'TIERSCOPESECRET' } });
  if (r.status !== 0) {
    const why = (r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' | ');
    stop();
    throw new Error(`could not start Ceph RGW (scripts/ceph-rgw.sh exit ${r.status}): ${why}`);
  }
  const endpoint = r.stdout.trim().split('\n').pop()!;
  console.log(`Ceph RGW at ${endpoint} in ${((Date.now() - started) / 1000).toFixed(1)} s (${dir})`);
  project.provide('realS3', { endpoint, accessKeyId: 'TIERSCOPEKEY', secretAccessKey: 'TIERSCOPESECRET', cephDir: dir });
  return () => {
    stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
