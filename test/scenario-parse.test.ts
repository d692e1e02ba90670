import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test, expect } from 'vitest';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { parseScenarioText, validateScenario } from '../core/scenario/parse.js';
import type { InputProblem, ParseResult, Scenario } from '../core/scenario/types.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'bad');

/* eslint-disable @typescript-eslint/no-explicit-any */
type Raw = any;

/** The first scenario-file example (the core of docs/scenario-format.md's, before prices and clientZone), verbatim. */
const FORMAT_EXAMPLE = `
name: KIP-1023 fast partial upload          # required
description: Empty follower joins a tiered leader.   # optional, shown in UI and CLI
seed: 7                                     # optional, default 1
brokers: 3                                  # broker ids 0 .. brokers-1
zones: [a, b, c]                            # optional; broker i is in zones[i % len]
config:                                     # broker configs, Kafka names, cluster-wide
  follower.fetch.last.tiered.offset.enable: true
  replica.fetch.backoff.ms: 1000
  remote.log.manager.task.interval.ms: 30000
model:                                      # model knobs that are not Kafka configs
  recordBytes: 1024                         # bytes of one produced record
topics:
  - name: orders
    partitions: 1
    replicas: [[0, 1]]                      # per partition; the first is the leader
    config:                                 # topic configs, Kafka names
      remote.storage.enable: true
      internal.segment.bytes: 51200
      local.retention.bytes: 1
    initial:                                # optional: the leader's log at t = 0
      - partition: 0
        leaderEpoch: 2
        leaderEpochs: [[0, 0], [1, 50], [2, 120]]   # (epoch, startOffset); default [[leaderEpoch, LSO]]
        segments:                           # contiguous, oldest first; the last is active
          - { baseOffset: 0,   endOffset: 99,  tier: remote }   # tiered only
          - { baseOffset: 100, endOffset: 149, tier: both }     # uploaded and still local
          - { baseOffset: 150, endOffset: 199, tier: local }    # not uploaded
        highestOffsetInRemoteStorage: -1    # optional; default: end of the last remote/both
                                            # segment; -1 = the leader does not know yet;
                                            # below the first segment = stale (tiering was
                                            # disabled, then enabled again)
        remoteLogMetadataReadyMs: 5000      # optional; until then the leader's remote
                                            # log metadata is loading and its RLM task
                                            # cannot learn Ry (default 0)
timeline:                                   # optional, in time order
  - at: 0
    addReplica: { topic: orders, partition: 0, broker: 2 }    # an empty replica joins
  - at: 1000
    produce: { topic: orders, partition: 0, records: 500, acks: all }
  - at: 2000
    consume: { topic: orders, partition: 0, broker: 1, fromOffset: 100, records: 50 }
  - at: 3000
    crash: { broker: 0 }
  - at: 4000
    restart: { broker: 0 }
  - at: 5000
    electLeader: { topic: orders, partition: 0, broker: 1 }
  - at: 6000
    setConfig: { follower.fetch.last.tiered.offset.enable: false }   # broker or topic key
  - at: 7000
    objectStore: { available: false }                       # outage; true ends it
until: 60000                                # required: when the run stops
`;

const MINIMAL = `
name: minimal
brokers: 1
topics:
  - name: t
    partitions: 1
    replicas: [[0]]
until: 10
`;

/** A valid scenario as a plain value; every invalid case below changes one thing. */
function base(): Raw {
  return {
    name: 'base',
    brokers: 3,
    zones: ['a', 'b', 'c'],
    config: { 'replica.fetch.backoff.ms': 1000, 'follower.fetch.last.tiered.offset.enable': true },
    model: { recordBytes: 1024 },
    topics: [
      {
        name: 'orders',
        partitions: 2,
        replicas: [[0, 1], [1, 2]],
        config: { 'remote.storage.enable': true, 'internal.segment.bytes': 51200 },
        initial: [
          {
            partition: 0,
            leaderEpoch: 2,
            leaderEpochs: [[0, 0], [1, 50], [2, 120]],
            segments: [
              { baseOffset: 0, endOffset: 99, tier: 'remote' },
              { baseOffset: 100, endOffset: 149, tier: 'both' },
              { baseOffset: 150, endOffset: 199, tier: 'local' },
            ],
          },
        ],
      },
      { name: 'plain', partitions: 1, replicas: [[2]] },
    ],
    timeline: [
      { at: 0, addReplica: { topic: 'orders', partition: 0, broker: 2 } },
      { at: 1000, produce: { topic: 'orders', partition: 1, records: 10 } },
      { at: 2000, consume: { topic: 'orders', partition: 0, fromOffset: 0, records: 5 } },
      { at: 3000, crash: { broker: 0 } },
      { at: 4000, restart: { broker: 0 } },
      { at: 5000, electLeader: { topic: 'orders', partition: 0, broker: 1 } },
      { at: 6000, setConfig: { 'segment.bytes': 2097152, 'replica.fetch.backoff.ms': 5 } },
      { at: 6000, setConfig: { topic: 'orders', 'retention.ms': 5 } },
      { at: 7000, objectStore: { available: false, store: 'wal' } },
    ],
    until: 60000,
  };
}

function problemsOf(r: ParseResult): InputProblem[] {
  if (r.ok) throw new Error(`expected problems, got a valid scenario: ${JSON.stringify(r.scenario)}`);
  expect((r as Raw).scenario).toBeUndefined();
  return r.problems;
}

function scenarioOf(r: ParseResult): Scenario {
  if (!r.ok) throw new Error(`expected a valid scenario, got problems:\n${r.problems.map((p) => `${p.path}: ${p.message}`).join('\n')}`);
  expect((r as Raw).problems).toBeUndefined();
  return r.scenario;
}

function paths(r: ParseResult): string[] {
  return problemsOf(r).map((p) => p.path);
}

describe('valid scenarios', () => {
  test('the example of docs/scenario-format.md parses, with its clientZone and prices', () => {
    const doc = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'scenario-format.md'), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const s = scenarioOf(parseScenarioText(example, 'scenario-format.md'));
    expect(s.model).toEqual({ recordBytes: 1024, clientZone: 'b' });
    expect(s.prices).toEqual({ walPriceList: 'before-2025-04', crossZoneUsdPerGbEachDirection: 0.01 });
  });

  test('the first format example parses, with every value as written', () => {
    const s = scenarioOf(parseScenarioText(FORMAT_EXAMPLE, 'contract.yaml'));
    expect(s.name).toBe('KIP-1023 fast partial upload');
    expect(s.description).toBe('Empty follower joins a tiered leader.');
    expect(s.seed).toBe(7);
    expect(s.brokers).toBe(3);
    expect(s.zones).toEqual(['a', 'b', 'c']);
    expect(s.config).toEqual({
      'follower.fetch.last.tiered.offset.enable': true,
      'replica.fetch.backoff.ms': 1000,
      'remote.log.manager.task.interval.ms': 30000,
    });
    expect(s.model).toEqual({ recordBytes: 1024 });
    expect(s.topics).toEqual([
      {
        name: 'orders',
        partitions: 1,
        replicas: [[0, 1]],
        config: { 'remote.storage.enable': true, 'internal.segment.bytes': 51200, 'local.retention.bytes': 1 },
        initial: [
          {
            partition: 0,
            leaderEpoch: 2,
            leaderEpochs: [[0, 0], [1, 50], [2, 120]],
            segments: [
              { baseOffset: 0, endOffset: 99, tier: 'remote' },
              { baseOffset: 100, endOffset: 149, tier: 'both' },
              { baseOffset: 150, endOffset: 199, tier: 'local' },
            ],
            highestOffsetInRemoteStorage: -1,
            remoteLogMetadataReadyMs: 5000,
          },
        ],
      },
    ]);
    expect(s.timeline).toEqual([
      { at: 0, action: { kind: 'addReplica', topic: 'orders', partition: 0, broker: 2 } },
      { at: 1000, action: { kind: 'produce', topic: 'orders', partition: 0, records: 500, acks: 'all' } },
      { at: 2000, action: { kind: 'consume', topic: 'orders', partition: 0, broker: 1, fromOffset: 100, records: 50 } },
      { at: 3000, action: { kind: 'crash', broker: 0 } },
      { at: 4000, action: { kind: 'restart', broker: 0 } },
      { at: 5000, action: { kind: 'electLeader', topic: 'orders', partition: 0, broker: 1 } },
      { at: 6000, action: { kind: 'setConfig', values: { 'follower.fetch.last.tiered.offset.enable': false } } },
      { at: 7000, action: { kind: 'objectStore', available: false } },
    ]);
    expect(s.until).toBe(60000);
    // Plain data: round-trips through JSON.
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  test('the same scenario as JSON gives the same result', () => {
    const fromYaml = scenarioOf(parseScenarioText(FORMAT_EXAMPLE));
    const asJson = JSON.stringify(parseYaml(FORMAT_EXAMPLE), null, 2);
    expect(scenarioOf(parseScenarioText(asJson, 'x.json'))).toEqual(fromYaml);
    expect(scenarioOf(validateScenario(JSON.parse(asJson)))).toEqual(fromYaml);
  });

  test('defaults: description, seed, zones, config, model, timeline, topic config, initial', () => {
    const s = scenarioOf(parseScenarioText(MINIMAL));
    expect(s).toEqual({
      name: 'minimal',
      description: '',
      seed: 1,
      brokers: 1,
      zones: ['a'],
      config: {},
      model: {},
      topics: [{ name: 't', partitions: 1, replicas: [[0]], config: {}, initial: [] }],
      timeline: [],
      until: 10,
    });
  });

  test('optional keys given as null take their defaults', () => {
    const s = scenarioOf(parseScenarioText(`${MINIMAL}\ndescription:\nseed:\nzones:\nconfig:\nmodel:\ntimeline:\n`));
    expect(s.description).toBe('');
    expect(s.seed).toBe(1);
    expect(s.zones).toEqual(['a']);
    expect(s.timeline).toEqual([]);
  });

  test('initial defaults: leaderEpochs from leaderEpoch and the first baseOffset', () => {
    const raw = base();
    raw.topics[0].initial = [
      { partition: 0, leaderEpoch: 4, segments: [{ baseOffset: 30, endOffset: 39, tier: 'local' }] },
      { partition: 1, segments: [{ baseOffset: 0, endOffset: -1, tier: 'local' }] },
    ];
    const s = scenarioOf(validateScenario(raw));
    expect(s.topics[0].initial[0]).toEqual({
      partition: 0,
      leaderEpoch: 4,
      leaderEpochs: [[4, 30]],
      segments: [{ baseOffset: 30, endOffset: 39, tier: 'local' }],
      remoteLogMetadataReadyMs: 0,
    });
    expect('highestOffsetInRemoteStorage' in s.topics[0].initial[0]).toBe(false);
    // An empty active segment (endOffset = baseOffset - 1), epoch 0 by default.
    expect(s.topics[0].initial[1]).toMatchObject({ leaderEpoch: 0, leaderEpochs: [[0, 0]] });
  });

  test('initial defaults: leaderEpoch is the last epoch of leaderEpochs', () => {
    const raw = base();
    delete raw.topics[0].initial[0].leaderEpoch;
    const s = scenarioOf(validateScenario(raw));
    expect(s.topics[0].initial[0].leaderEpoch).toBe(2);
  });

  test.each<[string, (r: Raw) => void]>([
    ['seed 0', (r) => { r.seed = 0; }],
    ['seed 2^32-1', (r) => { r.seed = 2 ** 32 - 1; }],
    ['brokers 64', (r) => { r.brokers = 64; }],
    ['an empty active segment', (r) => { r.topics[0].initial[0].segments[2].endOffset = 149; r.topics[0].initial[0].leaderEpochs = [[0, 0], [1, 150]]; }],
    ['a startOffset at the log end offset', (r) => { r.topics[0].initial[0].leaderEpochs[2][1] = 200; }],
    ['equal startOffsets', (r) => { r.topics[0].initial[0].leaderEpochs = [[0, 0], [3, 0]]; r.topics[0].initial[0].leaderEpoch = 5; }],
    ['only local segments', (r) => { r.topics[0].initial[0].segments.forEach((s: Raw) => { s.tier = 'local'; }); }],
    ['highestOffsetInRemoteStorage -1 and stale', (r) => { r.topics[0].initial[0].highestOffsetInRemoteStorage = -1; }],
    ['events at the same time and at until', (r) => { r.timeline[8].at = 60000; r.timeline[7].at = 6000; }],
    ['config values at their minimum', (r) => { r.topics[0].config['local.retention.ms'] = -2; r.config['replica.fetch.backoff.ms'] = 0; }],
    ['cleanup.policy compact,delete', (r) => { r.topics[1].config = { 'cleanup.policy': 'compact,delete' }; }],
    ['clientZone in a zone and the default', (r) => { r.model.clientZone = 'c'; }],
    ['clientZone empty: the leader\'s zone', (r) => { r.model.clientZone = ''; }],
    ['prices: every key, zeros allowed', (r) => {
      r.prices = {
        crossZoneUsdPerGbEachDirection: 0, tieredStorageUsdPerGbMonth: 0.023, tieredPutUsdPer1000: 0.005, tieredGetUsdPer1000: 0.0004,
        tieredDeleteUsdPer1000: 0, tieredUploadUsdPerGb: 0, tieredRetrievalUsdPerGb: 0, tieredFreeTransferPerRequestBytes: 0,
        walPriceList: 'before-2025-04', walStorageUsdPerGbMonth: 0.16, walPutUsdPer1000: 0.0025, walGetUsdPer1000: 0.0002,
        walDeleteUsdPer1000: 0, walUploadUsdPerGb: 0.008, walRetrievalUsdPerGb: 0.0015, walFreeTransferPerRequestBytes: 524288,
        localDiskUsdPerGbMonth: 1,
      };
    }],
    ['prices null (not given)', (r) => { r.prices = null; }],
    ['prices empty', (r) => { r.prices = {}; }],
  ])('valid: %s', (_title, change) => {
    const raw = base();
    change(raw);
    scenarioOf(validateScenario(raw));
  });

  test('until 10^10 is the largest until; the work budget, checked after the schema, refuses most runs that long (test/scenario-limits.test.ts)', () => {
    const raw = base();
    raw.until = 1e10;
    expect(scenarioOf(validateScenario(raw, { checkWork: false })).until).toBe(1e10);
    expect(paths(validateScenario(raw))).toEqual(['until']);
  });

  test('acks: default 1, -1 means all, 0 stays 0', () => {
    const raw = base();
    raw.timeline[1].produce.acks = -1;
    raw.timeline.push({ at: 8000, produce: { topic: 'plain', partition: 0, records: 1, acks: 0 } });
    raw.timeline.push({ at: 8000, produce: { topic: 'plain', partition: 0, records: 1 } });
    const s = scenarioOf(validateScenario(raw));
    expect(s.timeline[1].action).toEqual({ kind: 'produce', topic: 'orders', partition: 1, records: 10, acks: 'all' });
    expect(s.timeline[9].action).toMatchObject({ acks: 0 });
    expect(s.timeline[10].action).toMatchObject({ acks: 1 });
  });

  test('setConfig with and without a topic', () => {
    const s = scenarioOf(validateScenario(base()));
    expect(s.timeline[6].action).toEqual({ kind: 'setConfig', values: { 'segment.bytes': 2097152, 'replica.fetch.backoff.ms': 5 } });
    expect(s.timeline[7].action).toEqual({ kind: 'setConfig', topic: 'orders', values: { 'retention.ms': 5 } });
    expect(s.timeline[8].action).toEqual({ kind: 'objectStore', available: false, store: 'wal' });
    expect(s.timeline[2].action).toEqual({ kind: 'consume', topic: 'orders', partition: 0, fromOffset: 0, records: 5 });
  });

  test('consume config: the consumer configs given, Kafka names; an empty map is no config', () => {
    const raw = base();
    raw.timeline[2].consume.config = { 'max.partition.fetch.bytes': 0, 'fetch.max.bytes': 4096 };
    expect(scenarioOf(validateScenario(raw)).timeline[2].action).toEqual({
      kind: 'consume', topic: 'orders', partition: 0, fromOffset: 0, records: 5, config: { 'max.partition.fetch.bytes': 0, 'fetch.max.bytes': 4096 },
    });
    raw.timeline[2].consume.config = {};
    expect(scenarioOf(validateScenario(raw)).timeline[2].action).toEqual({ kind: 'consume', topic: 'orders', partition: 0, fromOffset: 0, records: 5 });
  });

  test('prices: only the given keys are kept; none given, no prices key', () => {
    const raw = base();
    expect(scenarioOf(validateScenario(raw)).prices).toBeUndefined();
    raw.prices = { walPriceList: 'before-2025-04', crossZoneUsdPerGbEachDirection: 0.02 };
    raw.model.clientZone = 'b';
    const s = scenarioOf(validateScenario(raw));
    expect(s.prices).toEqual({ walPriceList: 'before-2025-04', crossZoneUsdPerGbEachDirection: 0.02 });
    expect(s.model).toEqual({ recordBytes: 1024, clientZone: 'b' });
  });

  test('validation does not change its input', () => {
    const raw = base();
    const copy = JSON.parse(JSON.stringify(raw));
    validateScenario(raw);
    expect(raw).toEqual(copy);
  });
});

/** [title, change to base(), the exact paths of all problems, a pattern the first message matches]. */
type Case = [string, (r: Raw) => void, string[], RegExp?];

const T0 = 'topics[0]';
const I0 = 'topics[0].initial[0]';
const S = `${I0}.segments`;

const INVALID: Case[] = [
  // top level
  ['name missing', (r) => { delete r.name; }, ['name'], /missing required key 'name'; expected a non-empty string/],
  ['name empty', (r) => { r.name = ''; }, ['name'], /expected a non-empty string, got ""/],
  ['name a number', (r) => { r.name = 5; }, ['name'], /got 5/],
  ['description not a string', (r) => { r.description = ['x']; }, ['description'], /expected a string, got an array/],
  ['seed negative', (r) => { r.seed = -1; }, ['seed'], /expected an integer from 0 to 4294967295, got -1/],
  ['seed too big', (r) => { r.seed = 2 ** 32; }, ['seed']],
  ['seed fractional', (r) => { r.seed = 1.5; }, ['seed'], /got 1\.5/],
  ['brokers missing', (r) => { delete r.brokers; }, ['brokers'], /missing required key 'brokers'/],
  ['brokers 0', (r) => { r.brokers = 0; }, ['brokers'], /expected an integer from 1 to 64, got 0/],
  ['brokers 65', (r) => { r.brokers = 65; }, ['brokers']],
  ['brokers a string', (r) => { r.brokers = '3'; }, ['brokers'], /got "3"/],
  ['zones empty', (r) => { r.zones = []; }, ['zones'], /non-empty array/],
  ['zones not an array', (r) => { r.zones = 'a'; }, ['zones']],
  ['a zone empty', (r) => { r.zones = ['a', '']; }, ['zones[1]']],
  ['unknown top-level key', (r) => { r.brokerz = 3; }, ['brokerz'], /unknown key 'brokerz'; expected one of name, description, seed, brokers/],
  ['config an array', (r) => { r.config = [1]; }, ['config'], /expected a map of broker configs/],
  ['config unknown key', (r) => { r.config['no.such.config'] = 1; }, ['config["no.such.config"]'], /unknown broker config 'no.such.config'; expected one of/],
  ['config holds a topic key', (r) => { r.config['segment.bytes'] = 1; }, ['config["segment.bytes"]'], /topic config; put it under topics\[i\]\.config/],
  ['config holds a model knob', (r) => { r.config.recordBytes = 1; }, ['config.recordBytes'], /model knob/],
  ['config int below min', (r) => { r.config['replica.fetch.backoff.ms'] = -1; }, ['config["replica.fetch.backoff.ms"]'], /expected an integer >= 0, got -1/],
  ['config int as a string', (r) => { r.config['replica.fetch.backoff.ms'] = '1000'; }, ['config["replica.fetch.backoff.ms"]'], /got "1000"/],
  ['config boolean as a string', (r) => { r.config['follower.fetch.last.tiered.offset.enable'] = 'true'; }, ['config["follower.fetch.last.tiered.offset.enable"]'], /expected true or false, got "true"/],
  ['model an array', (r) => { r.model = []; }, ['model']],
  ['model unknown knob', (r) => { r.model.recordSize = 1; }, ['model.recordSize'], /unknown model knob 'recordSize'/],
  ['model knob below min', (r) => { r.model.recordBytes = 0; }, ['model.recordBytes'], /expected an integer from 1 to 2147483586 \(a record batch's size is a 32-bit int in Kafka's format \(2\^31 - 1\), less its 61-byte header\), got 0/],
  ['model holds a broker config', (r) => { r.model['replica.fetch.backoff.ms'] = 1; }, ['model["replica.fetch.backoff.ms"]'], /top-level config/],
  ['clientZone not a zone of the scenario', (r) => { r.model.clientZone = 'd'; }, ['model.clientZone'], /expected '' \(the partition leader's zone\) or one of the zones a, b, c, got "d"/],
  ['clientZone a number', (r) => { r.model.clientZone = 1; }, ['model.clientZone'], /got 1$/],
  ['recordBytes as a zone name', (r) => { r.model.recordBytes = 'a'; }, ['model.recordBytes'], /expected an integer from 1 to 2147483586 .*, got "a"/],
  // prices
  ['prices not a map', (r) => { r.prices = [0.01]; }, ['prices'], /expected a map of prices \(crossZoneUsdPerGbEachDirection, /],
  ['prices unknown key', (r) => { r.prices = { s3PutUsd: 1 }; }, ['prices.s3PutUsd'], /unknown price 's3PutUsd'; expected one of crossZoneUsdPerGbEachDirection, tieredStorageUsdPerGbMonth/],
  ['price negative', (r) => { r.prices = { tieredPutUsdPer1000: -0.005 }; }, ['prices.tieredPutUsdPer1000'], /expected a number >= 0 \(USD\), got -0\.005/],
  ['price a string', (r) => { r.prices = { crossZoneUsdPerGbEachDirection: '0.01' }; }, ['prices.crossZoneUsdPerGbEachDirection'], /got "0\.01"/],
  ['price Infinity', (r) => { r.prices = { localDiskUsdPerGbMonth: Number.POSITIVE_INFINITY }; }, ['prices.localDiskUsdPerGbMonth'], /got Infinity/],
  ['price NaN', (r) => { r.prices = { walGetUsdPer1000: Number.NaN }; }, ['prices.walGetUsdPer1000'], /got NaN/],
  ['price a boolean', (r) => { r.prices = { walUploadUsdPerGb: true }; }, ['prices.walUploadUsdPerGb'], /got true/],
  ['walPriceList unknown', (r) => { r.prices = { walPriceList: '2024-01' }; }, ['prices.walPriceList'], /expected one of '2025-04', 'before-2025-04', got "2024-01"/],
  ['free transfer bytes fractional', (r) => { r.prices = { walFreeTransferPerRequestBytes: 512.5 }; }, ['prices.walFreeTransferPerRequestBytes'], /expected an integer >= 0 \(bytes\), got 512\.5/],
  ['free transfer bytes negative', (r) => { r.prices = { tieredFreeTransferPerRequestBytes: -1 }; }, ['prices.tieredFreeTransferPerRequestBytes']],
  ['several bad prices, each with its path', (r) => { r.prices = { walPriceList: 'new', tieredGetUsdPer1000: -1, egress: 0 }; }, ['prices.walPriceList', 'prices.tieredGetUsdPer1000', 'prices.egress']],
  ['topics missing', (r) => { delete r.topics; r.timeline = []; }, ['topics'], /missing required key 'topics'/],
  ['topics empty', (r) => { r.topics = []; r.timeline = []; }, ['topics'], /non-empty array of topics, got an empty array/],
  ['topics a map', (r) => { r.topics = { orders: {} }; r.timeline = []; }, ['topics'], /got a map/],
  ['timeline a map', (r) => { r.timeline = { at: 0 }; }, ['timeline']],
  ['until missing', (r) => { delete r.until; }, ['until'], /missing required key 'until'/],
  ['until 0', (r) => { r.until = 0; }, ['until'], /expected an integer from 1 to 10000000000/],
  ['until above 10^10', (r) => { r.until = 1e10 + 1; r.timeline = []; }, ['until']],
  // topics[i]
  ['topic unknown key', (r) => { r.topics[0].retention = '7d'; }, [`${T0}.retention`], /unknown key 'retention'; expected one of name, partitions, replicas, config, initial/],
  ['topic name missing', (r) => { delete r.topics[1].name; }, ['topics[1].name']],
  ['topic name with a space', (r) => { r.topics[1].name = 'a b'; }, ['topics[1].name'], /got "a b"/],
  ['topic name too long', (r) => { r.topics[1].name = 'x'.repeat(250); }, ['topics[1].name']],
  ['topic name duplicate', (r) => { r.topics[1].name = 'orders'; }, ['topics[1].name'], /unique.*also at topics\[0\]\.name/],
  ['partitions 0', (r) => { r.topics[1].partitions = 0; r.topics[1].replicas = []; }, ['topics[1].partitions', 'topics[1].replicas']],
  ['partitions 1001', (r) => { r.topics[1].partitions = 1001; }, ['topics[1].partitions'], /from 1 to 1000/],
  ['replicas missing', (r) => { delete r.topics[1].replicas; }, ['topics[1].replicas']],
  ['replicas count != partitions', (r) => { r.topics[0].replicas = [[0, 1]]; }, [`${T0}.replicas`], /expected 2 replica lists .*got 1/],
  ['replicas entry empty', (r) => { r.topics[0].replicas[1] = []; }, [`${T0}.replicas[1]`]],
  ['replicas broker out of range', (r) => { r.topics[0].replicas[0][1] = 3; }, [`${T0}.replicas[0][1]`], /expected an integer from 0 to 2 \(a broker id; brokers: 3\), got 3/],
  ['replicas broker repeated', (r) => { r.topics[0].replicas[0] = [1, 1]; }, [`${T0}.replicas[0][1]`], /distinct/],
  ['topic config holds a broker key', (r) => { r.topics[0].config['replica.fetch.backoff.ms'] = 1; }, [`${T0}.config["replica.fetch.backoff.ms"]`], /broker config .*top-level config/],
  ['topic config unknown key', (r) => { r.topics[0].config['segment.size'] = 1; }, [`${T0}.config["segment.size"]`], /unknown topic config/],
  ['topic config string not in oneOf', (r) => { r.topics[0].config['cleanup.policy'] = 'keep'; }, [`${T0}.config["cleanup.policy"]`], /expected one of 'delete', 'compact'/],
  ['topic config int below min', (r) => { r.topics[0].config['retention.ms'] = -3; }, [`${T0}.config["retention.ms"]`], /expected an integer >= -1, got -3/],
  ['initial a map', (r) => { r.topics[0].initial = { partition: 0 }; }, [`${T0}.initial`]],
  // topics[i].initial[j]
  ['initial unknown key', (r) => { r.topics[0].initial[0].lso = 0; }, [`${I0}.lso`]],
  ['initial partition missing', (r) => { delete r.topics[0].initial[0].partition; }, [`${I0}.partition`]],
  ['initial partition out of range', (r) => { r.topics[0].initial[0].partition = 2; }, [`${I0}.partition`], /expected an integer from 0 to 1 \(topic 'orders' has 2 partitions\), got 2/],
  ['initial partition repeated', (r) => { r.topics[0].initial.push({ partition: 0, segments: [{ baseOffset: 0, endOffset: 0, tier: 'local' }] }); }, ['topics[0].initial[1].partition'], /also at topics\[0\]\.initial\[0\]/],
  ['leaderEpoch negative', (r) => { r.topics[0].initial[0].leaderEpoch = -1; }, [`${I0}.leaderEpoch`]],
  ['leaderEpoch below the last epoch', (r) => { r.topics[0].initial[0].leaderEpoch = 1; }, [`${I0}.leaderEpoch`], /expected an integer >= 2 \(the last epoch in leaderEpochs\), got 1/],
  ['leaderEpochs empty', (r) => { r.topics[0].initial[0].leaderEpochs = []; }, [`${I0}.leaderEpochs`]],
  ['leaderEpochs entry not a pair', (r) => { r.topics[0].initial[0].leaderEpochs[1] = [1]; }, [`${I0}.leaderEpochs[1]`], /\[epoch, startOffset\] pair/],
  ['leaderEpochs epochs not ascending', (r) => { r.topics[0].initial[0].leaderEpochs[2][0] = 1; }, [`${I0}.leaderEpochs[2][0]`], /strictly ascending/],
  ['leaderEpochs startOffsets decreasing', (r) => { r.topics[0].initial[0].leaderEpochs[2][1] = 40; }, [`${I0}.leaderEpochs[2][1]`], /never decrease/],
  ['leaderEpochs startOffset past the log end', (r) => { r.topics[0].initial[0].leaderEpochs[2][1] = 201; }, [`${I0}.leaderEpochs[2][1]`], /from 0 to 200/],
  ['leaderEpochs startOffset before the first segment', (r) => {
    r.topics[0].initial[0].segments[0].baseOffset = 10;
  }, [`${I0}.leaderEpochs[0][1]`], /from 10 to 200 .*got 0/],
  ['segments missing', (r) => { delete r.topics[0].initial[0].segments; delete r.topics[0].initial[0].leaderEpochs; }, [`${S}`]],
  ['segments empty', (r) => { r.topics[0].initial[0].segments = []; delete r.topics[0].initial[0].leaderEpochs; }, [`${S}`]],
  ['segment unknown key', (r) => { r.topics[0].initial[0].segments[0].size = 1; }, [`${S}[0].size`]],
  ['segment gap', (r) => { r.topics[0].initial[0].segments[1].baseOffset = 110; }, [`${S}[1].baseOffset`], /^gap: expected 100 .*got 110/],
  ['segment overlap', (r) => { r.topics[0].initial[0].segments[2].baseOffset = 140; }, [`${S}[2].baseOffset`], /^overlap: expected 150 .*got 140/],
  ['segment baseOffset not an integer', (r) => { r.topics[0].initial[0].segments[1].baseOffset = 'ten'; }, [`${S}[1].baseOffset`], /expected an integer >= 0, got "ten"/],
  ['non-active segment empty', (r) => { r.topics[0].initial[0].segments[1].endOffset = 99; }, [`${S}[1].endOffset`], /only the last, active segment may be empty/],
  ['active segment endOffset below baseOffset - 1', (r) => { r.topics[0].initial[0].segments[2].endOffset = 148; }, [`${S}[2].endOffset`], /expected an integer >= 149/],
  ['segment tier unknown', (r) => { r.topics[0].initial[0].segments[0].tier = 'cold'; }, [`${S}[0].tier`], /expected one of 'remote', 'both', 'local', got "cold"/],
  ['remote after local', (r) => {
    r.topics[0].initial[0].segments[0].tier = 'local';
    r.topics[0].initial[0].segments[1].tier = 'remote';
  }, [`${S}[1].tier`], /got 'remote' after a 'local' segment/],
  ['remote after both', (r) => { r.topics[0].initial[0].segments[0].tier = 'both'; r.topics[0].initial[0].segments[1].tier = 'remote'; }, [`${S}[1].tier`]],
  ['active segment not local', (r) => { r.topics[0].initial[0].segments[2].tier = 'both'; }, [`${S}[2].tier`], /last \(active\) segment/],
  ['remote segment on a topic that is not tiered', (r) => {
    r.topics[0].config['remote.storage.enable'] = false;
  }, [`${S}[0].tier`, `${S}[1].tier`], /remote\.storage\.enable: true in topics\[0\]\.config/],
  ['remote segment on a topic without config', (r) => {
    r.topics[1].initial = [{ partition: 0, segments: [{ baseOffset: 0, endOffset: 9, tier: 'remote' }, { baseOffset: 10, endOffset: 9, tier: 'local' }] }];
  }, ['topics[1].initial[0].segments[0].tier']],
  ['highestOffsetInRemoteStorage below -1', (r) => { r.topics[0].initial[0].highestOffsetInRemoteStorage = -2; }, [`${I0}.highestOffsetInRemoteStorage`]],
  ['highestOffsetInRemoteStorage past the log', (r) => { r.topics[0].initial[0].highestOffsetInRemoteStorage = 200; }, [`${I0}.highestOffsetInRemoteStorage`], /from -1 to 199/],
  ['remoteLogMetadataReadyMs negative', (r) => { r.topics[0].initial[0].remoteLogMetadataReadyMs = -1; }, [`${I0}.remoteLogMetadataReadyMs`]],
  // timeline[k]
  ['event not a map', (r) => { r.timeline[0] = 'crash'; }, ['timeline[0]']],
  ['event at missing', (r) => { delete r.timeline[0].at; }, ['timeline[0].at']],
  ['event at negative', (r) => { r.timeline[0].at = -1; }, ['timeline[0].at']],
  ['event at after until', (r) => { r.timeline[8].at = 60001; }, ['timeline[8].at'], /from 0 to 60000/],
  ['events out of order', (r) => { r.timeline[2].at = 500; }, ['timeline[2].at'], /time order; timeline\[1\]\.at is 1000\), got 500/],
  ['event without an action', (r) => { r.timeline[3] = { at: 3000 }; }, ['timeline[3]'], /exactly one action key .*got none/],
  ['event with two actions', (r) => { r.timeline[3].restart = { broker: 0 }; }, ['timeline[3]'], /got 2: crash, restart/],
  ['event unknown key', (r) => { r.timeline[3].note = 'x'; }, ['timeline[3].note'], /unknown key 'note' in a timeline event/],
  ['action body not a map', (r) => { r.timeline[3].crash = [0]; }, ['timeline[3].crash']],
  ['action unknown key', (r) => { r.timeline[3].crash.zone = 'a'; }, ['timeline[3].crash.zone'], /unknown key 'zone' in crash; expected one of broker/],
  ['addReplica unknown topic', (r) => { r.timeline[0].addReplica.topic = 'nope'; }, ['timeline[0].addReplica.topic'], /unknown topic 'nope'; expected one of orders, plain/],
  ['addReplica partition out of range', (r) => { r.timeline[0].addReplica.partition = 2; }, ['timeline[0].addReplica.partition']],
  ['addReplica broker out of range', (r) => { r.timeline[0].addReplica.broker = 3; }, ['timeline[0].addReplica.broker']],
  ['produce records 0', (r) => { r.timeline[1].produce.records = 0; }, ['timeline[1].produce.records'], /from 1 to 10000000/],
  ['produce records above 10^7', (r) => { r.timeline[1].produce.records = 1e7 + 1; }, ['timeline[1].produce.records']],
  ['produce acks 2', (r) => { r.timeline[1].produce.acks = 2; }, ['timeline[1].produce.acks'], /expected 0, 1, 'all' or -1/],
  ['produce acks ALL', (r) => { r.timeline[1].produce.acks = 'ALL'; }, ['timeline[1].produce.acks']],
  ['produce partition missing', (r) => { delete r.timeline[1].produce.partition; }, ['timeline[1].produce.partition']],
  ['consume fromOffset negative', (r) => { r.timeline[2].consume.fromOffset = -1; }, ['timeline[2].consume.fromOffset']],
  ['consume broker out of range', (r) => { r.timeline[2].consume.broker = 9; }, ['timeline[2].consume.broker']],
  ['consume records missing', (r) => { delete r.timeline[2].consume.records; }, ['timeline[2].consume.records']],
  ['consume config not a map', (r) => { r.timeline[2].consume.config = 5; }, ['timeline[2].consume.config'], /expected a map of consumer configs \(max\.partition\.fetch\.bytes, fetch\.max\.bytes, fetch\.max\.wait\.ms, metadata\.max\.age\.ms, client\.rack\), got 5/],
  ['consume config unknown key', (r) => { r.timeline[2].consume.config = { 'fetch.min.byte': 1 }; }, ['timeline[2].consume.config["fetch.min.byte"]'], /unknown consumer config 'fetch\.min\.byte'/],
  ['consume config a broker config', (r) => { r.timeline[2].consume.config = { 'replica.fetch.max.bytes': 1 }; }, ['timeline[2].consume.config["replica.fetch.max.bytes"]'], /is a broker config, not a consumer config; put it under the top-level config/],
  ['consume max.partition.fetch.bytes negative (Kafka: atLeast(0))', (r) => { r.timeline[2].consume.config = { 'max.partition.fetch.bytes': -1 }; }, ['timeline[2].consume.config["max.partition.fetch.bytes"]'], /expected an integer >= 0, got -1/],
  ['broker fetch.max.bytes below 1024 (Kafka: atLeast(1024))', (r) => { r.config['fetch.max.bytes'] = 1023; }, ['config["fetch.max.bytes"]'], /expected an integer >= 1024, got 1023/],
  ['replica.fetch.response.max.bytes negative (Kafka: atLeast(0))', (r) => { r.config['replica.fetch.response.max.bytes'] = -1; }, ['config["replica.fetch.response.max.bytes"]']],
  ['remote.fetch.max.wait.ms 0 (Kafka: atLeast(1))', (r) => { r.config['remote.fetch.max.wait.ms'] = 0; }, ['config["remote.fetch.max.wait.ms"]']],
  ['crash broker not a number', (r) => { r.timeline[3].crash.broker = 'x'; }, ['timeline[3].crash.broker']],
  ['restart broker missing', (r) => { r.timeline[4].restart = {}; }, ['timeline[4].restart.broker']],
  ['electLeader partition out of range', (r) => { r.timeline[5].electLeader.partition = 5; }, ['timeline[5].electLeader.partition']],
  ['setConfig unknown key', (r) => { r.timeline[6].setConfig['no.such'] = 1; }, ['timeline[6].setConfig["no.such"]'], /unknown config 'no.such'/],
  ['setConfig empty', (r) => { r.timeline[6].setConfig = {}; }, ['timeline[6].setConfig'], /at least one config key/],
  ['setConfig bad value', (r) => { r.timeline[6].setConfig['segment.bytes'] = 0; }, ['timeline[6].setConfig["segment.bytes"]']],
  ['setConfig with topic and a broker key', (r) => { r.timeline[7].setConfig['replica.fetch.backoff.ms'] = 1; }, ['timeline[7].setConfig["replica.fetch.backoff.ms"]'], /cannot be set for one topic/],
  ['setConfig unknown topic', (r) => { r.timeline[7].setConfig.topic = 'nope'; }, ['timeline[7].setConfig.topic']],
  ['setConfig model knob', (r) => { r.timeline[6].setConfig.recordBytes = 5; }, ['timeline[6].setConfig.recordBytes'], /model knob/],
  ['objectStore available missing', (r) => { delete r.timeline[8].objectStore.available; }, ['timeline[8].objectStore.available']],
  ['objectStore available a string', (r) => { r.timeline[8].objectStore.available = 'false'; }, ['timeline[8].objectStore.available'], /expected true or false, got "false"/],
  ['objectStore store unknown', (r) => { r.timeline[8].objectStore.store = 's3'; }, ['timeline[8].objectStore.store'], /expected one of 'tiered', 'wal'/],
  // numbers
  ['NaN', (r) => { r.brokers = Number.NaN; }, ['brokers'], /got NaN/],
  ['Infinity', (r) => { r.until = Number.POSITIVE_INFINITY; r.timeline = []; }, ['until'], /got Infinity/],
  ['beyond MAX_SAFE_INTEGER', (r) => { r.topics[0].initial[0].segments[2].endOffset = 2 ** 60; }, [`${S}[2].endOffset`], /safe integer/],
  ['a bigint', (r) => { r.brokers = 3n; }, ['brokers'], /got 3n/],
];

describe('one problem per rule, at the exact path', () => {
  test.each(INVALID)('%s', (_title, change, expectedPaths, message) => {
    const raw = base();
    change(raw);
    const problems = problemsOf(validateScenario(raw));
    expect(problems.map((p) => p.path)).toEqual(expectedPaths);
    if (message) expect(problems[0].message).toMatch(message);
    for (const p of problems) {
      expect(typeof p.message).toBe('string');
      expect(p.message.length).toBeGreaterThan(0);
    }
  });
});

describe('many problems', () => {
  test('a file with several problems lists all of them', () => {
    const text = `
name: ""
seed: -4
brokers: 2
zones: []
config:
  segment.bytes: 5
topics:
  - name: orders
    partitions: 1
    replicas: [[0, 2]]
    initial:
      - partition: 0
        segments:
          - { baseOffset: 0, endOffset: 9, tier: local }
          - { baseOffset: 5, endOffset: 20, tier: remote }
timeline:
  - at: 100
    crash: { broker: 7 }
  - at: 50
    produce: { topic: payments, partition: 0, records: 1 }
  - at: 60
frobnicate: true
`;
    expect(paths(parseScenarioText(text, 'many.yaml'))).toEqual([
      'frobnicate',
      'name',
      'seed',
      'zones',
      'config["segment.bytes"]',
      'until',
      'topics[0].replicas[0][1]',
      'topics[0].initial[0].segments[1].baseOffset',
      'topics[0].initial[0].segments[1].tier',
      'topics[0].initial[0].segments[1].tier',
      'timeline[0].crash.broker',
      'timeline[1].at',
      'timeline[1].produce.topic',
      'timeline[2]',
    ]);
  });
});

describe('YAML text', () => {
  test('a syntax error is one problem at path "" with its line, never a throw', () => {
    const problems = problemsOf(parseScenarioText('name: x\ntopics: [1, 2\nuntil: 5\n', 'broken.yaml'));
    expect(problems.length).toBeGreaterThanOrEqual(1);
    expect(problems[0].path).toBe('');
    expect(problems[0].message).toMatch(/YAML syntax error \(broken\.yaml, line \d+, column \d+\)/);
  });

  test('bad indentation', () => {
    const problems = problemsOf(parseScenarioText('name: x\n  brokers: 1\n   until: 3\n'));
    expect(problems[0].path).toBe('');
    expect(problems[0].message).toMatch(/line \d+/);
  });

  test('an unterminated JSON document', () => {
    const problems = problemsOf(parseScenarioText('{"name": "x", "brokers": 1', 'x.json'));
    expect(problems.every((p) => p.path === '')).toBe(true);
  });

  test('an empty file', () => {
    expect(problemsOf(parseScenarioText(''))).toEqual([{ path: '', message: expect.stringMatching(/empty document/) }]);
    expect(paths(parseScenarioText('# only a comment\n'))).toEqual(['']);
  });

  test('a top level that is not a map', () => {
    expect(paths(parseScenarioText('- a\n- b\n'))).toEqual(['']);
    expect(paths(parseScenarioText('42'))).toEqual(['']);
    expect(paths(parseScenarioText('"just a string"'))).toEqual(['']);
  });

  test('several documents in one file', () => {
    expect(paths(parseScenarioText(`${MINIMAL}\n---\n${MINIMAL}`))).toEqual(['']);
  });

  test('duplicate keys are problems at their path, with the other problems', () => {
    const text = `${MINIMAL}brokers: 2\n`;
    const problems = problemsOf(parseScenarioText(text, 'dup.yaml'));
    expect(problems.map((p) => p.path)).toEqual(['brokers']);
    expect(problems[0].message).toMatch(/duplicate key 'brokers' \(dup\.yaml, line 9, column 1\)/);

    const nested = problemsOf(parseScenarioText(`
name: x
brokers: 1
topics:
  - name: t
    partitions: 1
    replicas: [[0]]
    config: { segment.bytes: 1048576, segment.bytes: 2097152 }
    name: u
until: 0
`));
    expect(nested.map((p) => p.path)).toEqual(['topics[0].config["segment.bytes"]', 'topics[0].name', 'until']);
  });

  test('tags are refused (no custom or YAML 1.1 types)', () => {
    for (const text of [
      `${MINIMAL}description: !!binary aGVsbG8=\n`,
      `${MINIMAL}description: !custom x\n`,
      `${MINIMAL}description: !!js/function "function () {}"\n`,
      `${MINIMAL}description: !!timestamp 2001-12-14\n`,
    ]) {
      const problems = problemsOf(parseScenarioText(text));
      expect(problems.map((p) => p.path)).toEqual(['description']);
      expect(problems[0].message).toMatch(/tag/);
    }
    // A YAML 1.1 directive does not turn on merge keys or timestamps.
    expect(paths(parseScenarioText(`%YAML 1.1\n---\n${MINIMAL}<<: { seed: 3 }\n`))).toEqual(['["<<"]']);
  });

  test('aliases are fine, an alias bomb is one problem', () => {
    scenarioOf(parseScenarioText(`${MINIMAL}zones: &z [a, b]\ndescription: &d hello\n`));
    const bomb = [
      'name: bomb',
      'brokers: 1',
      'a: &a [x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]',
      'g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]',
    ].join('\n');
    const problems = problemsOf(parseScenarioText(bomb));
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toBe('');
    expect(problems[0].message).toMatch(/alias/);
  });

  test('deep nesting does not crash', () => {
    for (const depth of [50, 20000]) {
      const deep = `${MINIMAL}description: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
      // Either the YAML reader gives up (a problem at '') or validation reports the value.
      const found = paths(parseScenarioText(deep));
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((p) => p === '' || p === 'description')).toBe(true);
    }
    expect(paths(parseScenarioText(`${MINIMAL}description: ${'['.repeat(50)}${']'.repeat(50)}\n`))).toEqual(['description']);
    const raw = base();
    let v: Raw = 1;
    for (let i = 0; i < 100000; i++) v = { x: v };
    raw.model = v;
    raw.topics[0].config = [v];
    expect(paths(validateScenario(raw))).toEqual(['model.x', 'topics[0].config']);
  });
});

describe('hostile input', () => {
  test('prototype-pollution keys are unknown keys and pollute nothing', () => {
    const text = JSON.stringify({
      ...JSON.parse(JSON.stringify(base())),
      topics: [{ ...base().topics[0], ['__proto__']: { polluted: 1 } }, base().topics[1]],
    }).replace('"name":"base"', '"name":"base","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"prototype":1')
      .replace('"model":{', '"model":{"__proto__":{"polluted":1},')
      .replace('"restart":{', '"restart":{"constructor":1,');
    const problems = problemsOf(parseScenarioText(text, 'evil.json'));
    expect(problems.map((p) => p.path)).toEqual([
      '__proto__',
      'constructor',
      'prototype',
      'model.__proto__',
      'topics[0].__proto__',
      'timeline[4].restart.constructor',
    ]);
    expect(problems[0].message).toMatch(/unknown key '__proto__'/);
    expect(({} as Raw).polluted).toBeUndefined();
    expect((Object.prototype as Raw).polluted).toBeUndefined();
  });

  test('JSON.parse objects with __proto__ go through validateScenario too', () => {
    const raw = JSON.parse('{"name":"x","brokers":1,"topics":[{"name":"t","partitions":1,"replicas":[[0]],"config":{"__proto__":{"x":1}}}],"until":5,"config":{"constructor":1}}');
    expect(paths(validateScenario(raw))).toEqual(['config.constructor', 'topics[0].config.__proto__']);
    expect(({} as Raw).x).toBeUndefined();
  });

  test('a valid scenario has no inherited or extra keys', () => {
    const s = scenarioOf(validateScenario(base()));
    expect(Object.keys(s)).toEqual(['name', 'description', 'seed', 'brokers', 'zones', 'config', 'model', 'topics', 'timeline', 'until']);
    expect(Object.getPrototypeOf(s.config)).toBe(Object.prototype);
  });

  test('huge numbers', () => {
    const text = `
name: big
seed: 123456789012345678901234567890
brokers: 1e400
topics:
  - name: t
    partitions: .inf
    replicas: [[0]]
    initial:
      - partition: 0
        segments:
          - { baseOffset: 9007199254740993, endOffset: 9007199254740999, tier: local }
timeline:
  - at: .nan
    crash: { broker: 0 }
until: 99999999999999999999
`;
    const problems = problemsOf(parseScenarioText(text));
    expect(problems.map((p) => p.path)).toEqual([
      'seed',
      'brokers',
      'until',
      'topics[0].partitions',
      'topics[0].initial[0].segments[0].baseOffset',
      'topics[0].initial[0].segments[0].endOffset',
      'timeline[0].at',
    ]);
    expect(problems[0].message).toMatch(/safe integer/);
    expect(problems[1].message).toMatch(/got Infinity/);
    expect(problems[6].message).toMatch(/got NaN/);
  });

  test.each<[string, unknown]>([
    ['undefined', undefined],
    ['null', null],
    ['a number', 42],
    ['a string', 'name: x'],
    ['an array', [base()]],
    ['a Map', new Map([['name', 'x']])],
    ['a Date', new Date(0)],
    ['a class instance', new (class Scenario { name = 'x'; })()],
  ])('validateScenario(%s) is one problem at path ""', (_title, value) => {
    expect(paths(validateScenario(value))).toEqual(['']);
  });

  test('parseScenarioText never throws, and gives ok xor problems', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = parseScenarioText(text);
        expect(r.ok ? 'scenario' in r && !('problems' in r) : r.problems.length > 0 && !('scenario' in r)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test('validateScenario never throws on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true, withNullPrototype: true }), (v) => {
        const r = validateScenario(v);
        expect(r.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  test('validateScenario never throws on mutated scenarios', () => {
    const leaves = fc.oneof(fc.integer(), fc.double(), fc.string(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.array(fc.integer()), fc.dictionary(fc.string(), fc.integer()));
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), leaves), { maxLength: 4 }), (edits) => {
        const raw = base();
        for (const [pick, value] of edits) {
          // Walk to some container in the scenario and replace one of its entries.
          const containers: Array<[Raw, string | number]> = [];
          const walk = (node: Raw): void => {
            if (node && typeof node === 'object') {
              for (const k of Object.keys(node)) {
                containers.push([node, k]);
                walk(node[k]);
              }
            }
          };
          walk(raw);
          const [obj, key] = containers[pick % containers.length];
          obj[key] = value;
        }
        const r = validateScenario(raw);
        if (!r.ok) expect(r.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('fixtures in test/fixtures/bad', () => {
  test.each<[string, string[]]>([
    ['gap-and-unknown-key.yaml', [
      'topics[0].retention',
      'topics[0].replicas[0][1]',
      'topics[0].initial[0].segments[1].baseOffset',
    ]],
    ['missing-until.yaml', ['until']],
    ['wrong-types.json', [
      'seed',
      'brokers',
      'config["replica.fetch.backoff.ms"]',
      'config["follower.fetch.last.tiered.offset.enable"]',
      'topics[0].partitions',
      'timeline[0].produce.records',
      'timeline[0].produce.acks',
    ]],
    ['bad-prices.yaml', [
      'model.clientZone',
      'prices.crossZoneUsdPerGbEachDirection',
      'prices.walPriceList',
      'prices.s3GlacierUsdPerGbMonth',
    ]],
  ])('%s', (file, expected) => {
    const text = readFileSync(join(FIXTURES, file), 'utf8');
    const problems = problemsOf(parseScenarioText(text, file));
    expect(problems.map((p) => p.path)).toEqual(expected);
  });
});
