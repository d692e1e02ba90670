/**
 * One check for timeline actions: the page's recorded (URL) actions are read by the same
 * rules, with the same messages, as a scenario file's timeline.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { validateScenario } from '../core/scenario/parse.js';
import { actionContext, readTimelineAction } from '../core/scenario/timeline.js';
import type { Scenario } from '../core/scenario/types.js';
import { ROOT, loadBundled } from './support/run.js';

const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));

const base = {
  name: 'actions',
  brokers: 3,
  topics: [{ name: 't', partitions: 2, replicas: [[0, 1], [1, 2]], config: { 'remote.storage.enable': true } }],
  until: 1000,
};

function scenario(): Scenario {
  const r = validateScenario(base);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.scenario;
}

/** The parser's problems for one timeline event `{at: 0, [kind]: body}`, with the event's path cut off. */
function fileProblems(kind: string, body: unknown): Array<{ path: string; message: string }> {
  const r = validateScenario({ ...base, timeline: [{ at: 0, [kind]: body }] });
  if (r.ok) return [];
  return r.problems.map((p) => ({ path: p.path.replace(`timeline[0].${kind}`, ''), message: p.message }));
}

function pageProblems(action: unknown): Array<{ path: string; message: string }> {
  const r = readTimelineAction(actionContext(scenario()), action, 'a');
  if (r.ok) return [];
  return r.problems.map((p) => ({ path: p.path.replace(/^a/, ''), message: p.message }));
}

describe('readTimelineAction', () => {
  test.each(bundled)('%s: every timeline action reads back as itself', (name) => {
    const s = loadBundled(name);
    const ctx = actionContext(s);
    s.timeline.forEach((e, i) => {
      expect(readTimelineAction(ctx, e.action, `timeline[${i}]`)).toEqual({ ok: true, action: e.action });
    });
  });

  test.each([
    ['crash', { broker: 3 }],
    ['isolate', { broker: -1 }],
    ['heal', { broker: 'one' }],
    ['electLeader', { topic: 'u', partition: 0, broker: 1 }],
    ['addReplica', { topic: 't', partition: 2, broker: 0 }],
    ['produce', { topic: 't', partition: 0, records: 0, untilMs: 5 }],
    ['consume', { topic: 't', partition: 1, broker: 7, fromOffset: -1 }],
    ['objectStore', { available: 'yes', store: 'disk', extraLatencyMs: 700000 }],
    ['restart', { broker: 0, extra: 1 }],
    ['addBroker', { broker: 5 }],
    ['addReplica', { topic: 't', partition: 0, broker: 3 }],
  ])('%s %j: the page gets the parser\'s problems', (kind, body) => {
    const expected = fileProblems(kind, body);
    expect(expected.length).toBeGreaterThan(0);
    expect(pageProblems({ kind, ...body })).toEqual(expected);
  });

  test('setConfig: configs under values get the parser\'s problems at values.<key>', () => {
    const body = { topic: 't', 'follower.fetch.last.tiered.offset.enable': true, 'retention.ms': -5 };
    const expected = fileProblems('setConfig', body);
    expect(expected.map((p) => p.path)).toEqual(['["follower.fetch.last.tiered.offset.enable"]', '["retention.ms"]']);
    expect(pageProblems({ kind: 'setConfig', topic: 't', values: { 'follower.fetch.last.tiered.offset.enable': true, 'retention.ms': -5 } }))
      .toEqual(expected.map((p) => ({ ...p, path: `.values${p.path}` })));
    expect(pageProblems({ kind: 'setConfig', topic: 'u', values: { 'retention.ms': 5 } })).toEqual(fileProblems('setConfig', { topic: 'u', 'retention.ms': 5 }));
    expect(pageProblems({ kind: 'setConfig', values: {} })).toEqual([{ path: '.values', message: 'expected at least one config key to set, got none' }]);
    expect(pageProblems({ kind: 'setConfig', values: 'all' })).toEqual([{ path: '.values', message: 'expected a map of config keys to values, got "all"' }]);
    expect(pageProblems({ kind: 'setConfig' })).toEqual([{ path: '.values', message: "missing required key 'values'; expected a map of config keys to values" }]);
  });

  test('the action read is fresh, with the defaults a scenario file gets', () => {
    const ctx = actionContext(scenario());
    expect(readTimelineAction(ctx, { kind: 'produce', topic: 't', partition: 1, records: 5, acks: -1 }, 'a'))
      .toEqual({ ok: true, action: { kind: 'produce', topic: 't', partition: 1, records: 5, acks: 'all' } });
    expect(readTimelineAction(ctx, { kind: 'produce', topic: 't', partition: 1, records: 5 }, 'a'))
      .toEqual({ ok: true, action: { kind: 'produce', topic: 't', partition: 1, records: 5, acks: 1 } });
    // The page's own check knew no isolate or heal; the timeline's does.
    expect(readTimelineAction(ctx, { kind: 'isolate', broker: 2 }, 'a')).toEqual({ ok: true, action: { kind: 'isolate', broker: 2 } });
    const hostile = JSON.parse('{"kind":"crash","broker":1,"__proto__":{"polluted":true}}') as unknown;
    const r = readTimelineAction(ctx, hostile, 'a');
    expect(r.ok).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('an unknown kind or a non-map is a problem, never a throw', () => {
    expect(pageProblems({ kind: 'drain', broker: 0 })).toEqual([{
      path: '.kind',
      message: "expected one of 'addReplica', 'produce', 'consume', 'crash', 'restart', 'electLeader', 'setConfig', 'objectStore', 'isolate', 'heal', 'addBroker', got \"drain\"",
    }]);
    expect(pageProblems({ broker: 0 })[0].message).toMatch(/^missing required key 'kind'/);
    for (const v of [null, 7, 'crash', [], new Date(0)]) {
      expect(pageProblems(v)).toHaveLength(1);
    }
  });
});
