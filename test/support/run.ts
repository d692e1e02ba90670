/** Test helpers: load a bundled scenario, run it, and pick trace entries. */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenarioText } from '../../core/scenario/parse.js';
import type { Scenario } from '../../core/scenario/types.js';
import { Kernel } from '../../core/sim/loop/kernel.js';
import { buildRunJson, type RunJson } from '../../core/sim/loop/output.js';
import type { TraceEntry } from '../../core/sim/state/trace.js';

/** Trace entries read loosely in assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = Record<string, any>;

export const ROOT = join(import.meta.dirname, '..', '..');

export function loadBundled(name: string): Scenario {
  const text = readFileSync(join(ROOT, 'scenarios', `${name}.yaml`), 'utf8');
  const r = parseScenarioText(text, `${name}.yaml`);
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.problems)}`);
  return r.scenario;
}

export function runBundled(name: string, seed?: number): { kernel: Kernel; json: RunJson } {
  const kernel = new Kernel(loadBundled(name), seed === undefined ? {} : { seed });
  kernel.runToEnd();
  return { kernel, json: buildRunJson(kernel) };
}

/** The requests a broker sent, as short labels: `Fetch@0`, `ListOffsets-2`, `OffsetsForLeaderEpoch(1)`. */
export function requestsFrom(trace: TraceEntry[], broker: number): string[] {
  const out: string[] = [];
  for (const e of trace) {
    if (e.type !== 'request' || e.source !== broker) continue;
    const r = e as Extract<TraceEntry, { type: 'request' }>;
    if (r.api === 'Fetch') out.push(`Fetch@${r.fetchOffset}`);
    else if (r.api === 'ListOffsets') out.push(`ListOffsets${r.timestamp}`);
    else out.push(`OffsetsForLeaderEpoch(${r.leaderEpoch})`);
  }
  return out;
}

/** Errors of the Fetch responses a broker received, in order. */
export function fetchErrorsTo(trace: TraceEntry[], broker: number): string[] {
  return trace
    .filter((e) => e.type === 'response' && (e as { api: string }).api === 'Fetch' && (e as { target: unknown }).target === broker)
    .map((e) => (e as { error: string | null }).error)
    .filter((x): x is string => x !== null);
}

/** Collapses runs of the same label (long-poll fetches at the log end). */
export function collapse(labels: string[]): string[] {
  return labels.filter((l, i) => i === 0 || labels[i - 1] !== l);
}

export function replicaOf(json: RunJson, broker: number) {
  const r = json.partitions[0].replicas.find((x) => x.broker === broker);
  if (!r) throw new Error(`no replica on broker ${broker}`);
  return r;
}

/** The CLI in a child process (tsx), in `cwd`: its exit code and what it printed. */
export function cliIn(args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src', 'cli', 'main.ts'), ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
