/**
 * Known findings explained (issue 31, item 5): a violation that is a known finding (Kafka's
 * aux-state gap, core/sim/checks/findings.ts) is named as one, not as a VIOLATION, in the
 * CLI's `run` summary and narration and in the reports (md, svg, mermaid, json), with its
 * paragraph and where docs/protocol.md explains it; a new violation keeps its wording.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, test } from 'vitest';
import { KNOWN_FINDINGS } from '../core/check/findings.js';
import { buildReport, renderReport } from '../core/report/report.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { invariantsLines } from '../src/cli/run.js';
import { ROOT } from './support/run.js';

const dir = mkdtempSync(join(tmpdir(), 'tierscope-findings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const yaml = stringify((parse(readFileSync(join(ROOT, 'conformance', 'finding-aux-state-skipped-after-retry.yaml'), 'utf8')) as { scenario: unknown }).scenario);
const file = join(dir, 'finding.yaml');
writeFileSync(file, yaml);
const DOCS = 'docs/protocol.md#finding-aux-state';

describe('the run summary\'s invariants line', () => {
  test('all held, a violation, a known finding', () => {
    expect(invariantsLines([])).toEqual(['  invariants: all held']);
    expect(invariantsLines([{ atMs: 5, invariant: 'x', message: 'broken' }])).toEqual(['  VIOLATION at t=5ms x: broken']);
    const lines = invariantsLines([{ atMs: 7, invariant: 'followerEpochsMatchLeader', message: 'm', finding: 'auxStateIncomplete' }, { atMs: 9, invariant: 'y', message: 'n' }]);
    expect(lines[0]).toBe("  invariants: 1 known finding (Kafka's own behaviour, which the model follows, not an error of the model) and 1 violation");
    expect(lines[1]).toBe('  KNOWN FINDING at t=7ms followerEpochsMatchLeader: m');
    expect(lines[2]).toContain(`${KNOWN_FINDINGS[0].title}. ${KNOWN_FINDINGS[0].summary} See ${DOCS}.`);
    expect(lines[3]).toBe('  VIOLATION at t=9ms y: n');
  });
});

describe('the aux-state finding, end to end', () => {
  test('CLI run: narration and summary say KNOWN FINDING with the paragraph and the docs, never VIOLATION', () => {
    const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src', 'cli', 'main.ts'), 'run', file], { cwd: ROOT, encoding: 'utf8' });
    expect(r.stdout).not.toContain('VIOLATION');
    expect(r.stdout).toMatch(/t=\d+ms KNOWN FINDING followerEpochsMatchLeader: .*\(Kafka's own behaviour, which the model follows, not an error of the model; docs\/protocol\.md#finding-aux-state\)/);
    expect(r.stdout).toContain("  invariants: 1 known finding (Kafka's own behaviour, which the model follows, not an error of the model), no other violation");
    expect(r.stdout).toContain(`See ${DOCS}.`);
  });

  test('reports: md, svg, mermaid and json name it a known finding, with its explanation', () => {
    const parsed = parseScenarioText(yaml, 'finding.yaml');
    if (!parsed.ok) throw new Error('scenario');
    const report = buildReport(parsed.scenario, { scenarioRef: file });
    const md = renderReport(report, 'md');
    expect(md).toContain("1 known finding in this run: Kafka's own behaviour, which the model follows, not an error of the model.");
    expect(md).toContain(`See [${DOCS}](${DOCS}).`);
    expect(md).not.toMatch(/\d+ violations? in this run/);
    const svg = renderReport(report, 'svg');
    expect(svg).toContain('KNOWN FINDING at t=');
    expect(svg).toContain(`See ${DOCS}.`);
    expect(svg).not.toContain('VIOLATION');
    expect(renderReport(report, 'mermaid')).toContain('KNOWN FINDING followerEpochsMatchLeader');
    const json = JSON.parse(renderReport(report, 'json')) as { violations: Array<{ finding?: string }>; knownFindings: Array<{ id: string; docs: string }> };
    expect(json.violations.map((v) => v.finding)).toEqual(['auxStateIncomplete']);
    expect(json.knownFindings).toEqual([expect.objectContaining({ id: 'auxStateIncomplete', docs: DOCS })]);
  });
});
