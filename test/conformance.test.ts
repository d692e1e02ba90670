/**
 * Model-based tests, items 4 and 5: the conformance suite (conformance/*.yaml, expected
 * outcomes citing Kafka's tests and docs/protocol.md's examples) passes, its expectations can
 * fail, and each deliberate bug is caught, by an invariant or a conformance case, named.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BUGS, type BugName, withBugs } from '../core/util/bugs.js';
import { checkExpectations, runCase } from '../core/check/conformance.js';
import { knownFinding } from '../core/check/findings.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { loadConformance } from '../src/conformance.js';
import { ROOT, loadBundled } from './support/run.js';

const { cases, problems } = loadConformance();

describe('conformance suite', () => {
  test('every case file is valid and cites its source', () => {
    expect(problems).toEqual([]);
    expect(cases.length).toBeGreaterThanOrEqual(20);
    for (const c of cases) expect(c.source.length).toBeGreaterThan(10);
    // Every example of docs/protocol.md §9 has its case.
    for (let i = 1; i <= 10; i++) expect(cases.some((c) => c.source.includes(`docs/protocol.md §9.${i}`)), `docs/protocol.md §9.${i}`).toBe(true);
    // The count the README gives under "Model-based tests".
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`: ${cases.length} cases in \`conformance/\``);
  });

  test.each(cases.map((c) => [c.file, c] as const))('%s', (_file, c) => {
    const r = runCase(c);
    expect(r.failures, r.failures.join('\n')).toEqual([]);
  });

  test('an expectation that does not hold is reported with what was found', () => {
    const k = new Kernel(loadBundled('classic-one-round'));
    k.runToEnd();
    const json = buildRunJson(k);
    const f = checkExpectations(json, {
      requests: { 1: ['Fetch@0', 'ListOffsets-6'] },
      replicas: { 1: { localLogStartOffset: 99 } },
      contains: [{ type: 'response', error: 'FENCED_LEADER_EPOCH' }],
      lacks: [{ type: 'request', source: 1 }],
      violations: ['offsetsOrdered'],
    });
    expect(f).toHaveLength(5);
    expect(f.join('\n')).toContain('replica 1 localLogStartOffset: expected 99, got 100');
  });
});

/** Which checks notice a bug: the invariants of every bundled scenario, and the conformance cases. */
function caughtBy(bug: BugName): { invariants: string[]; cases: string[] } {
  return withBugs([bug], () => {
    const invariants = new Set<string>();
    for (const f of readdirSync(join(ROOT, 'scenarios')).filter((x) => x.endsWith('.yaml'))) {
      const k = new Kernel(loadBundled(f.replace(/\.yaml$/, '')));
      k.runToEnd();
      for (const v of k.state.violations) invariants.add(`${v.invariant} (${f.replace(/\.yaml$/, '')})`);
    }
    const failing = cases.filter((c) => runCase(c).failures.length > 0).map((c) => c.file);
    return { invariants: [...invariants].sort(), cases: failing };
  });
}

describe('deliberate bugs are caught', () => {
  // What is expected to catch each bug (at least these; others may notice too).
  const expected: Record<BugName, { invariant?: string; caseFile?: string }> = {
    deleteBeforeUpload: { invariant: 'noLocalDeleteBeforeUpload', caseFile: 'p9-10-local-retention.yaml' },
    skipAuxState: { invariant: 'followerEpochsMatchLeader', caseFile: 'kip1023-producer-state-restored.yaml' },
    noEpuoLsoClamp: { caseFile: 'p9-6-kip1023-stale-epuo.yaml' },
    hwWithoutIsr: { invariant: 'highWatermarkWithinIsr' },
    kip1023ForNonEmpty: { caseFile: 'kip1023-only-for-empty-followers.yaml' },
    acceptStaleWalChunk: { invariant: 'followerLogIsPrefixOfLeader', caseFile: 'wal-stale-epoch-chunk.yaml' },
    followerServesPastHighWatermark: { invariant: 'consumerReadsCommitted', caseFile: 'kip392-rack-aware-selector.yaml' },
  };

  test('every bug has an expected catcher', () => {
    expect(Object.keys(expected).sort()).toEqual(Object.keys(BUGS).sort());
  });

  test.each(Object.keys(BUGS) as BugName[])('%s', (bug) => {
    const by = caughtBy(bug);
    const named = [...by.invariants.map((i) => `invariant ${i}`), ...by.cases.map((c) => `conformance ${c}`)];
    console.log(`deliberate bug ${bug} (${BUGS[bug]}) caught by: ${named.join('; ')}`);
    expect(named.length, `${bug} went unnoticed`).toBeGreaterThan(0);
    const want = expected[bug];
    if (want.invariant) expect(by.invariants.some((i) => i.startsWith(want.invariant!))).toBe(true);
    if (want.caseFile) expect(by.cases).toContain(want.caseFile);
  }, 120000);

  test('with no bug switched on, nothing is caught', () => {
    const by = withBugs([], () => ({ cases: cases.filter((c) => runCase(c).failures.length > 0).map((c) => c.file) }));
    expect(by.cases).toEqual([]);
  });
});

describe('known findings', () => {
  test('each finding case shows only violations the known finding explains', () => {
    const findingCases = cases.filter((c) => c.file.startsWith('finding-'));
    expect(findingCases.length).toBeGreaterThanOrEqual(3);
    for (const c of findingCases) {
      const k = new Kernel(c.scenario, c.seed === undefined ? {} : { seed: c.seed });
      k.runToEnd();
      expect(k.state.violations.length, c.file).toBeGreaterThan(0);
      for (const v of k.state.violations) expect(knownFinding(v, k.trace)?.id, `${c.file}: ${v.message}`).toBe('auxStateIncomplete');
    }
  });

  test('the finding does not excuse the same invariant failing for another reason', () => {
    // skipAuxState breaks the same invariant, but with no aux-state build left open.
    const k = withBugs(['skipAuxState'], () => {
      const kk = new Kernel(loadBundled('kip1023-bootstrap'));
      kk.runToEnd();
      return kk;
    });
    expect(k.state.violations.length).toBeGreaterThan(0);
    for (const v of k.state.violations) expect(knownFinding(v, k.trace)).toBeUndefined();
  });
});
