/**
 * The conformance suite (model-based tests, item 5): cases with expected outcomes, each
 * citing the Kafka test or docs/protocol.md example it comes from. A case names a bundled scenario
 * or carries its own (the scenario file format), optionally a seed, and what must hold at
 * the end of the run:
 *
 *   name: ...
 *   source: AbstractFetcherThreadTest.testFollowerFetchOutOfRangeLow   # where it comes from
 *   scenario: classic-two-rounds          # or an inline scenario object
 *   expect:
 *     violations: []                      # exactly these invariants failed (default: none)
 *     requests: { 1: [Fetch@0, ListOffsets-1, ListOffsets-2, Fetch@10] }   # a broker's requests, collapsed, in order (a prefix)
 *     replicas: { 1: { logStartOffset: 10, localLogEndOffset: 200 } }     # fields of the JSON replica
 *     contains: [ { type: response, api: ListOffsets, timestamp: -6, offset: 10 } ]   # some trace entry has these fields
 *     lacks:    [ { type: objectStore, broker: 1 } ]                                  # no trace entry has them
 *     remoteSegments: [ [0, 49, COPY_SEGMENT_FINISHED] ]                                # (base, end, state), in order
 *     metrics: { bytesFetchedByFollowers: 51200 }                                       # fields of metrics (dotted paths)
 *
 * Checking returns one message per unmet expectation, so a failing case says what broke.
 */
import type { Scenario } from '../scenario/types.js';
import { Kernel } from '../sim/loop/kernel.js';
import { buildRunJson, type RunJson } from '../sim/loop/output.js';

type Loose = Record<string, unknown>;

export interface ConformanceCase {
  file: string;
  name: string;
  source: string;
  scenario: Scenario;
  seed?: number;
  expect: Loose;
}

export interface ConformanceResult {
  file: string;
  name: string;
  source: string;
  failures: string[];
  violations: string[];
}

function requestLabels(trace: Loose[], broker: number): string[] {
  const out: string[] = [];
  for (const e of trace) {
    if (e.type !== 'request' || e.source !== broker) continue;
    const label = e.api === 'Fetch' ? `Fetch@${String(e.fetchOffset)}` : e.api === 'ListOffsets' ? `ListOffsets${String(e.timestamp)}` : `OffsetsForLeaderEpoch(${String(e.leaderEpoch)})`;
    if (out[out.length - 1] !== label) out.push(label);
  }
  return out;
}

function matches(e: Loose, want: Loose): boolean {
  return Object.entries(want).every(([k, v]) => JSON.stringify(e[k]) === JSON.stringify(v));
}

function at(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const part of path.split('.')) cur = cur === null || typeof cur !== 'object' ? undefined : (cur as Loose)[part];
  return cur;
}

/** Every unmet expectation of a finished run. */
export function checkExpectations(json: RunJson, expect: Loose): string[] {
  const failures: string[] = [];
  const trace = json.trace as unknown as Loose[];
  const violations = json.violations.map((v) => v.invariant);
  const wantViolations = (expect.violations as string[] | undefined) ?? [];
  const uniq = [...new Set(violations)].sort();
  if (JSON.stringify(uniq) !== JSON.stringify([...wantViolations].sort())) failures.push(`violations: expected [${wantViolations.join(', ')}], got [${uniq.join(', ')}]`);
  for (const [broker, want] of Object.entries((expect.requests as Record<string, string[]>) ?? {})) {
    const got = requestLabels(trace, Number(broker));
    if (JSON.stringify(got.slice(0, want.length)) !== JSON.stringify(want)) failures.push(`requests of broker ${broker}: expected to start [${want.join(', ')}], got [${got.slice(0, want.length + 2).join(', ')}]`);
  }
  for (const [broker, want] of Object.entries((expect.replicas as Record<string, Loose>) ?? {})) {
    const r = json.partitions[0]?.replicas.find((x) => x.broker === Number(broker)) as unknown as Loose | undefined;
    if (r === undefined) {
      failures.push(`replica ${broker}: not in the partition`);
      continue;
    }
    for (const [k, v] of Object.entries(want)) {
      const got = at(r, k);
      if (JSON.stringify(got) !== JSON.stringify(v)) failures.push(`replica ${broker} ${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(got)}`);
    }
  }
  for (const want of (expect.contains as Loose[]) ?? []) {
    if (!trace.some((e) => matches(e, want))) failures.push(`trace: no entry with ${JSON.stringify(want)}`);
  }
  for (const want of (expect.lacks as Loose[]) ?? []) {
    const hit = trace.find((e) => matches(e, want));
    if (hit !== undefined) failures.push(`trace: unexpected entry ${JSON.stringify(hit)}`);
  }
  if (expect.remoteSegments !== undefined) {
    const got = (json.partitions[0]?.remoteSegments ?? []).map((s) => [s.baseOffset, s.endOffset, s.state]);
    if (JSON.stringify(got) !== JSON.stringify(expect.remoteSegments)) failures.push(`remote segments: expected ${JSON.stringify(expect.remoteSegments)}, got ${JSON.stringify(got)}`);
  }
  for (const [path, v] of Object.entries((expect.metrics as Loose) ?? {})) {
    const got = at(json.metrics, path);
    if (JSON.stringify(got) !== JSON.stringify(v)) failures.push(`metrics.${path}: expected ${JSON.stringify(v)}, got ${JSON.stringify(got)}`);
  }
  return failures;
}

export function runCase(c: ConformanceCase): ConformanceResult {
  const k = new Kernel(c.scenario, c.seed === undefined ? {} : { seed: c.seed });
  k.runToEnd();
  const json = buildRunJson(k);
  return {
    file: c.file,
    name: c.name,
    source: c.source,
    failures: checkExpectations(json, c.expect),
    violations: json.violations.map((v) => `${v.invariant}: ${v.message}`),
  };
}

const KNOWN = new Set(['name', 'source', 'scenario', 'seed', 'expect']);
const EXPECT_KEYS = new Set(['violations', 'requests', 'replicas', 'contains', 'lacks', 'remoteSegments', 'metrics']);

/**
 * A case from its parsed YAML; `resolve` turns a scenario name or inline object into a
 * validated scenario (or a list of problems).
 */
export function parseCase(file: string, doc: unknown, resolve: (s: unknown) => { ok: true; scenario: Scenario } | { ok: false; problems: string[] }): { ok: true; c: ConformanceCase } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { ok: false, problems: [`${file}: expected a mapping`] };
  const d = doc as Loose;
  for (const k of Object.keys(d)) if (!KNOWN.has(k)) problems.push(`${file}: unknown key ${k}`);
  if (typeof d.name !== 'string') problems.push(`${file}: name must be a string`);
  if (typeof d.source !== 'string' || d.source.length === 0) problems.push(`${file}: source must cite where the case comes from`);
  if (d.seed !== undefined && (typeof d.seed !== 'number' || !Number.isInteger(d.seed))) problems.push(`${file}: seed must be an integer`);
  const e = d.expect;
  if (e === null || typeof e !== 'object' || Array.isArray(e)) problems.push(`${file}: expect must be a mapping`);
  else for (const k of Object.keys(e)) if (!EXPECT_KEYS.has(k)) problems.push(`${file}: unknown expectation ${k}`);
  const s = resolve(d.scenario);
  if (!s.ok) problems.push(...s.problems.map((p) => `${file}: scenario: ${p}`));
  if (problems.length > 0 || !s.ok) return { ok: false, problems };
  return { ok: true, c: { file, name: d.name as string, source: d.source as string, scenario: s.scenario, ...(d.seed !== undefined ? { seed: d.seed as number } : {}), expect: e as Loose } };
}
