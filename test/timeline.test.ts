/**
 * Timeline events change the run at their time: setConfig takes effect at once.
 */
import { describe, expect, test } from 'vitest';
import { parseScenarioText, validateScenario } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { narrate } from '../core/narrate/narrate.js';
import { collapse, requestsFrom } from './support/run.js';

function tieredLeader(timeline: unknown[], segments = [
  { baseOffset: 10, endOffset: 99, tier: 'remote' },
  { baseOffset: 100, endOffset: 149, tier: 'both' },
  { baseOffset: 150, endOffset: 199, tier: 'local' },
]) {
  const parsed = validateScenario({
    name: 'setConfig',
    brokers: 3,
    config: { 'follower.fetch.last.tiered.offset.enable': false },
    topics: [{
      name: 't', partitions: 1, replicas: [[0, 1]],
      config: { 'remote.storage.enable': true, 'internal.segment.bytes': 51200 },
      initial: [{ partition: 0, segments }],
    }],
    timeline,
    until: 3000,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const k = new Kernel(parsed.scenario);
  k.runToEnd();
  return buildRunJson(k);
}

test('setConfig turns KIP-1023 on for a replica added afterwards; the earlier one stayed classic', () => {
  // Goal: the dynamic broker config applies from its time on.
  // Method: broker 1 bootstraps with the flag off; at t=1000 the flag goes on; broker 2 joins at t=1500.
  const json = tieredLeader([
    { at: 1000, setConfig: { 'follower.fetch.last.tiered.offset.enable': true } },
    { at: 1500, addReplica: { topic: 't', partition: 0, broker: 2 } },
  ]);
  expect(json.config['follower.fetch.last.tiered.offset.enable']).toBe(true);
  expect(collapse(requestsFrom(json.trace, 1)).slice(0, 4)).toEqual(['Fetch@0', 'ListOffsets-1', 'ListOffsets-2', 'Fetch@10']);
  expect(collapse(requestsFrom(json.trace, 2)).slice(0, 6)).toEqual(['Fetch@0', 'ListOffsets-2', 'ListOffsets-6', 'ListOffsets-4', 'ListOffsets-1', 'Fetch@150']);
  const [, b1, b2] = [0, 1, 2].map((b) => json.partitions[0].replicas.find((r) => r.broker === b)!);
  expect([b1.localLogStartOffset, b2.localLogStartOffset]).toEqual([100, 150]);
  expect(json.trace.some((e) => e.type === 'config' && (e as { key?: string }).key === 'follower.fetch.last.tiered.offset.enable')).toBe(true);
});

test('setConfig on a topic: with remote.storage.enable off, KIP-1023 does not apply', () => {
  // Goal: a topic config change is seen by the follower's eligibility check at once.
  // Method: leader 10 / 10 / 200 (all local); flag on; the topic's tiering is turned off at t=0
  // (with remote.log.delete.on.disable, without which Kafka refuses it).
  const json = tieredLeader(
    [
      { at: 0, setConfig: { 'follower.fetch.last.tiered.offset.enable': true } },
      { at: 0, setConfig: { topic: 't', 'remote.storage.enable': false, 'remote.log.delete.on.disable': true } },
    ],
    [{ baseOffset: 10, endOffset: 99, tier: 'local' }, { baseOffset: 100, endOffset: 199, tier: 'local' }],
  );
  expect(collapse(requestsFrom(json.trace, 1)).slice(0, 4)).toEqual(['Fetch@0', 'ListOffsets-1', 'ListOffsets-2', 'Fetch@10']);
  const b1 = json.partitions[0].replicas.find((r) => r.broker === 1)!;
  expect([b1.logStartOffset, b1.logEndOffset]).toEqual([10, 200]);
  expect((json.config.topics as Record<string, Record<string, unknown>>).t['remote.storage.enable']).toBe(false);
});

describe('timeline times to the microsecond', () => {
  const text = (at: string) => `name: t
brokers: 2
topics:
  - name: orders
    partitions: 1
    replicas: [[0, 1]]
timeline:
  - at: ${at}
    isolate: { broker: 1 }
until: 1000
`;
  test('an `at` with up to three decimals is read as given (a fault the exhaustive checker saved at the end of a transfer)', () => {
    const r = parseScenarioText(text('131.041'), 't.yaml');
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.scenario.timeline[0].at).toBe(131.041);
  });
  test('more decimals are refused, naming the field', () => {
    const r = parseScenarioText(text('1.0005'), 't.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual([{ path: 'timeline[0].at', message: expect.stringMatching(/got 1\.0005 \(a time is whole milliseconds or whole microseconds: at most 3 decimals\)/) }]);
  });
});

describe("Kafka's topic-name collision rule", () => {
  const text = (a: string, b: string) => `name: t
brokers: 1
topics:
  - name: ${a}
    partitions: 1
    replicas: [[0]]
  - name: ${b}
    partitions: 1
    replicas: [[0]]
until: 100
`;
  test("a topic whose name equals an earlier one once '.' and '_' are made one is refused with Kafka's reason", () => {
    const r = parseScenarioText(text('a.b', 'a_b'), 't.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual([{ path: 'topics[1].name', message: expect.stringMatching(/^Topic 'a_b' collides with existing topic: a\.b \(topics\[0\]\.name; /) }]);
  });
  test('names that differ otherwise are accepted', () => {
    expect(parseScenarioText(text('a.b', 'a-b'), 't.yaml').ok).toBe(true);
    expect(parseScenarioText(text('a_b', 'ab'), 't.yaml').ok).toBe(true);
  });
});

describe('a fault that finds the broker so already', () => {
  test('a second crash of a down broker, and a restart of a running one, each leave a trace entry and a narration line', () => {
    const r = parseScenarioText(
      `name: twice
brokers: 2
topics:
  - name: a
    partitions: 1
    replicas: [[0, 1]]
timeline:
  - at: 10
    crash: { broker: 1 }
  - at: 20
    crash: { broker: 1 }
  - at: 30
    restart: { broker: 1 }
  - at: 40
    restart: { broker: 1 }
until: 100
`,
      't.yaml',
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const k = new Kernel(r.scenario);
    k.runToEnd();
    const broker = k.trace.filter((e) => e.type === 'broker');
    expect(broker.map((e) => [e.atMs, (e as unknown as { action: string }).action])).toEqual([
      [10, 'crashed'],
      [20, 'alreadyDown'],
      [30, 'restarted'],
      [40, 'alreadyUp'],
    ]);
    expect(narrate(broker[1])).toBe('t=20ms broker 1 is already down: the timeline crashes a broker that is already down: nothing changes');
    expect(narrate(broker[3])).toMatch(/^t=40ms broker 1 is already running: /);
  });
});
