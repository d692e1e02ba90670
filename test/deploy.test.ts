/**
 * deploy/: the container image and the Kubernetes Indexed Job that run explore's shards
 * (deploy/README.md). No cluster here: the manifests are parsed and checked against what the
 * CLI does with them, and the Dockerfile against the files the CLI imports.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseFlags } from '../src/cli/flags.js';
import { ROOT } from './support/run.js';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function manifests(file: string): Loose[] {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy', file), 'utf8'));
  for (const d of docs) expect(d.errors).toEqual([]);
  return docs.map((d) => d.toJS() as Loose);
}

/** What the kubelet does to a container's args: $(VAR) becomes VAR's value from the container's env. */
function expand(args: string[], env: Record<string, string>): string[] {
  return args.map((a) => a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => env[name] ?? whole));
}

const INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

describe('deploy/explore-job.yaml: a Kubernetes Indexed Job of explore shards', () => {
  const [job] = manifests('explore-job.yaml');
  const [pvc] = manifests('results-pvc.yaml');
  const pod = job.spec.template.spec;
  const c = pod.containers.find((x: Loose) => x.name === 'explore');
  const args: string[] = c.args;
  const m = Number(/^auto\/(\d+)$/.exec(args[args.indexOf('--shard') + 1])?.[1]);

  test('a batch/v1 Job, completionMode Indexed, one completion per shard', () => {
    expect(job).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job', spec: { completionMode: 'Indexed' } });
    expect(m).toBeGreaterThan(0);
    expect(job.spec.completions).toBe(m);
    expect(job.spec.parallelism).toBeGreaterThanOrEqual(1);
    expect(job.spec.parallelism).toBeLessThanOrEqual(m);
    // Per-index retries and a pod failure policy need restartPolicy Never.
    expect(pod.restartPolicy).toBe('Never');
    expect(job.spec.backoffLimitPerIndex).toBeGreaterThanOrEqual(1);
    // Exit codes a retry would only repeat (src/cli/exit.ts) are not retried.
    const rule = (code: number) => job.spec.podFailurePolicy.rules.find((r: Loose) => r.onExitCodes?.values.includes(code));
    expect(rule(129)).toMatchObject({ action: 'FailIndex', onExitCodes: { containerName: 'explore', operator: 'In' } });
    expect(rule(2)).toMatchObject({ action: 'FailJob', onExitCodes: { containerName: 'explore', operator: 'In' } });
    expect(job.spec.podFailurePolicy.rules).toContainEqual({ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] });
  });

  test('the index reaches --shard and --out: JOB_COMPLETION_INDEX from the completion-index annotation', () => {
    expect(c.env).toContainEqual({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: INDEX_FIELD } } });
    expect(args[0]).toBe('explore');
    expect(args[args.indexOf('--out') + 1]).toContain('$(JOB_COMPLETION_INDEX)');
    const outs = new Set<string>();
    for (let i = 0; i < m; i++) {
      // The container's args go to the image's ENTRYPOINT (the CLI), after the kubelet expands them.
      const env = { JOB_COMPLETION_INDEX: String(i) };
      const expanded = expand(args, env);
      const flags = parseFlags(expanded.slice(1), expanded[0], env);
      expect(flags.shard).toEqual({ index: i, count: m });
      expect(flags.out).toBe(`/results/shard-${i}.jsonl`);
      expect(flags.seeds).toBeGreaterThanOrEqual(m);
      outs.add(flags.out!);
    }
    expect(outs.size).toBe(m);
  });

  test('one worker thread per requested core; the results volume is a ReadWriteMany claim mounted where --out writes', () => {
    const flags = parseFlags(expand(args, { JOB_COMPLETION_INDEX: '0' }).slice(1), 'explore', { JOB_COMPLETION_INDEX: '0' });
    expect(flags.workers).toBe(Number(c.resources.requests.cpu));
    expect(c.resources.limits.memory).toBeDefined();
    const mount = c.volumeMounts.find((v: Loose) => flags.out!.startsWith(v.mountPath + '/'));
    expect(mount).toBeDefined();
    const volume = pod.volumes.find((v: Loose) => v.name === mount.name);
    expect(volume.persistentVolumeClaim.claimName).toBe(pvc.metadata.name);
    expect(pvc).toMatchObject({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', spec: { accessModes: ['ReadWriteMany'] } });
    const [reader] = manifests('results-reader.yaml');
    expect(reader.spec.volumes[0].persistentVolumeClaim.claimName).toBe(pvc.metadata.name);
    expect(reader.spec.containers[0].image).toBe(c.image);
  });

  test('the image is the one deploy/README.md builds', () => {
    const readme = readFileSync(join(ROOT, 'deploy', 'README.md'), 'utf8');
    expect(readme).toContain(`docker build -f deploy/Dockerfile -t ${c.image} .`);
  });
});

describe('deploy/Dockerfile: the CLI in a container', () => {
  const text = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
  const lines = text.split('\n').filter((l) => !l.startsWith('#') && l.trim() !== '');
  const copies = lines.filter((l) => l.startsWith('COPY ')).map((l) => l.split(/\s+/).slice(1, -1)).flat();

  test('its ENTRYPOINT runs the CLI; it installs the runtime dependencies only', () => {
    const entry = JSON.parse(lines.find((l) => l.startsWith('ENTRYPOINT '))!.slice('ENTRYPOINT '.length)) as string[];
    expect(entry).toEqual(['node', 'bin/tierscope.mjs']);
    expect(readFileSync(join(ROOT, 'bin', 'tierscope.mjs'), 'utf8')).toContain("'../src/cli/main.ts'");
    expect(lines.some((l) => l.startsWith('RUN npm ci --omit=dev'))).toBe(true);
    // tsx runs the sources, so it must be a runtime dependency, not a dev one.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.dependencies.tsx).toBeDefined();
    expect(pkg.dependencies.yaml).toBeDefined();
    expect(lines[0]).toMatch(/^FROM node:\d+/);
  });

  test('every file it copies exists, and .dockerignore lets each in', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(ignore[0]).toBe('*');
    for (const src of copies) {
      expect(existsSync(join(ROOT, src)), src).toBe(true);
      const path = src.replace(/\/$/, '');
      expect(ignore.includes(`!${path}`) || ignore.includes(`!${path}/`), `.dockerignore lets ${src} in`).toBe(true);
    }
  });

  test('it copies every file the CLI imports (from src/cli/main.ts, its workers included)', () => {
    const roots = copies.map((s) => resolve(ROOT, s));
    const covered = (f: string) => roots.some((r) => f === r || (statSync(r).isDirectory() && !relative(r, f).startsWith('..')));
    const seen = new Set<string>();
    const todo = [join(ROOT, 'src', 'cli', 'main.ts')];
    while (todo.length > 0) {
      const f = todo.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      const src = readFileSync(f, 'utf8');
      // Static and dynamic imports and new URL('./x', import.meta.url) (the swarm's worker).
      for (const [, spec] of src.matchAll(/(?:from\s+|import\s*\(\s*|new URL\(\s*)'(\.{1,2}\/[^']+)'/g)) {
        let p = resolve(dirname(f), spec);
        if (!existsSync(p) && p.endsWith('.js')) p = p.replace(/\.js$/, '.ts');
        expect(existsSync(p), `${relative(ROOT, f)} imports ${spec}`).toBe(true);
        todo.push(p);
      }
    }
    expect(seen.size).toBeGreaterThan(50);
    expect([...seen].filter((f) => f.includes('explore-worker'))).toHaveLength(2);
    expect([...seen].map((f) => relative(ROOT, f)).filter((f) => !covered(resolve(ROOT, f)))).toEqual([]);
    // What the CLI reads at run time: the bundled scenarios, the conformance cases, the package's version.
    for (const d of ['scenarios', 'conformance', 'package.json']) expect(copies.some((s) => s.replace(/\/$/, '') === d)).toBe(true);
  });
});
