/**
 * Model-based tests, item 2: random command sequences (produce, consume, crash, restart,
 * elect, add a replica, toggle configs, object-store outages, advance time) on a tiered
 * partition, checked after every step against every invariant and against a deliberately
 * simple reference: the committed log is an append-only sequence of batches, and no
 * replica may ever hold a different batch at a committed offset.
 *
 * fast-check shrinks a failure to a short command list; the message gives the seed and
 * path to replay the property, and the saved scenario file to replay the run itself with
 * `npm run sim -- run FILE`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type BugName, withBugs } from '../core/util/bugs.js';
import { toScenarioFile } from '../core/scenario/serialize.js';
import type { Scenario, TimelineAction, TimelineEvent } from '../core/scenario/types.js';
import { Kernel } from '../core/sim/loop/kernel.js';

type Command = { afterMs: number; action: TimelineAction };

const BROKERS = 3;
const TOPIC = 'orders';

const command: fc.Arbitrary<Command> = fc.record({
  afterMs: fc.integer({ min: 0, max: 3000 }),
  action: fc.oneof(
    { weight: 4, arbitrary: fc.record({ records: fc.integer({ min: 1, max: 120 }), acks: fc.constantFrom<1 | 'all'>(1, 'all') }).map(({ records, acks }): TimelineAction => ({ kind: 'produce', topic: TOPIC, partition: 0, records, acks })) },
    { weight: 1, arbitrary: fc.record({ broker: fc.integer({ min: 0, max: BROKERS - 1 }), fromOffset: fc.integer({ min: 0, max: 400 }) }).map(({ broker, fromOffset }): TimelineAction => ({ kind: 'consume', topic: TOPIC, partition: 0, broker, fromOffset, records: 50 })) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: BROKERS - 1 }).map((broker): TimelineAction => ({ kind: 'crash', broker })) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: BROKERS - 1 }).map((broker): TimelineAction => ({ kind: 'restart', broker })) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: BROKERS - 1 }).map((broker): TimelineAction => ({ kind: 'electLeader', topic: TOPIC, partition: 0, broker })) },
    { weight: 1, arbitrary: fc.constant<TimelineAction>({ kind: 'addReplica', topic: TOPIC, partition: 0, broker: 2 }) },
    // A broker 3 joins the cluster (a second addBroker is ignored); an addReplica of it before that is ignored too.
    { weight: 1, arbitrary: fc.constant<TimelineAction>({ kind: 'addBroker', broker: BROKERS }) },
    { weight: 1, arbitrary: fc.constant<TimelineAction>({ kind: 'addReplica', topic: TOPIC, partition: 0, broker: BROKERS }) },
    {
      weight: 1,
      arbitrary: fc
        .record({ key: fc.constantFrom('follower.fetch.last.tiered.offset.enable', 'remote.log.copy.disable', 'wal.enable'), on: fc.boolean() })
        .map(({ key, on }): TimelineAction => (key === 'wal.enable' ? { kind: 'setConfig', topic: TOPIC, values: { [key]: on } } : { kind: 'setConfig', values: { [key]: on } })),
    },
    { weight: 1, arbitrary: fc.record({ available: fc.boolean(), store: fc.constantFrom<'tiered' | 'wal'>('tiered', 'wal') }).map(({ available, store }): TimelineAction => ({ kind: 'objectStore', available, store })) },
  ),
});

/** The scenario a command list drives: RF 2 (broker 2 may be added), tiered, small segments. */
function scenarioOf(commands: Command[], seed: number): Scenario {
  let at = 0;
  const timeline: TimelineEvent[] = commands.map((c) => ({ at: (at += c.afterMs), action: c.action }));
  return {
    name: 'random commands',
    description: '',
    seed,
    brokers: BROKERS,
    zones: ['a', 'b', 'c'],
    config: { 'remote.log.manager.task.interval.ms': 500, 'replica.lag.time.max.ms': 4000 },
    model: {},
    topics: [
      {
        name: TOPIC,
        partitions: 1,
        replicas: [[0, 1]],
        config: { 'remote.storage.enable': true, 'internal.segment.bytes': 51200, 'local.retention.bytes': 102400 },
        initial: [],
      },
    ],
    timeline,
    until: at + 5000,
  };
}

/** Runs the commands; returns the first broken check, or null. The reference is checked after every step. */
function check(s: Scenario): string | null {
  const k = new Kernel(s);
  const committed = new Map<number, string>();
  const key = (b: { baseOffset: number; lastOffset: number; leaderEpoch: number; baseSequence: number }) => `${b.baseOffset}-${b.lastOffset}@${b.leaderEpoch}#${b.baseSequence}`;
  const part = () => k.state.partitions[`${TOPIC}-0`];
  while (k.step()) {
    if (k.state.violations.length > 0) {
      const v = k.state.violations[0];
      return `invariant ${v.invariant} at t=${v.atMs}ms: ${v.message}`;
    }
    const p = part();
    // The reference learns what becomes committed (below the leader's HW) the first time it is.
    if (p.leader >= 0 && k.state.brokers[p.leader].alive) {
      const log = p.replicaStates[String(p.leader)].log;
      for (const seg of log.segments) for (const b of seg.batches) if (b.lastOffset < log.highWatermark && !committed.has(b.baseOffset)) committed.set(b.baseOffset, key(b));
    }
    // No replica may hold a different batch at a committed offset.
    for (const r of Object.values(p.replicaStates)) {
      for (const seg of r.log.segments) {
        for (const b of seg.batches) {
          const want = committed.get(b.baseOffset);
          if (want !== undefined && b.lastOffset < r.log.highWatermark && want !== key(b)) {
            return `reference: broker ${r.broker} holds ${key(b)} at committed offset ${b.baseOffset}, the committed log has ${want} (t=${k.state.nowMs}ms)`;
          }
        }
      }
    }
  }
  return null;
}

function property(bugs: BugName[] = []) {
  return fc.property(fc.array(command, { minLength: 1, maxLength: 14 }), fc.integer({ min: 1, max: 1000 }), (commands, seed) => {
    const s = scenarioOf(commands, seed);
    const broken = withBugs(bugs, () => check(s));
    if (broken !== null) {
      const file = join(mkdtempSync(join(tmpdir(), 'tierscope-prop-')), 'counterexample.json');
      writeFileSync(file, JSON.stringify(toScenarioFile(s), null, 2));
      throw new Error(`${broken}\nreplay the run: npm run sim -- run ${file}`);
    }
  });
}

describe('random command sequences', () => {
  test('every invariant and the committed-log reference hold (bounded: 60 sequences)', () => {
    fc.assert(property(), { numRuns: Number(process.env.PROP_RUNS ?? 60), seed: Number(process.env.PROP_SEED ?? 20261130), includeErrorInReport: true });
  }, 120000);

  test('the property fails, shrinks, and says how to replay, when the model is broken', () => {
    // Goal: the check can fail. Method: a deliberate bug (HW without the ISR) must be found.
    let report = '';
    try {
      fc.assert(property(['hwWithoutIsr']), { numRuns: 200, seed: 7, includeErrorInReport: true });
    } catch (e) {
      report = (e as Error).message;
    }
    expect(report).toMatch(/seed: 7, path: "[\d:]+"/);
    expect(report).toContain('highWatermarkWithinIsr');
    expect(report).toMatch(/replay the run: npm run sim -- run \S+counterexample\.json/);
    // Shrunk to a handful of commands.
    const counterexample = /Counterexample: \[(\[.*\]),/.exec(report)?.[1] ?? '';
    expect((counterexample.match(/"kind"/g) ?? []).length).toBeLessThanOrEqual(4);
  }, 120000);
});
