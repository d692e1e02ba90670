/**
 * `import` (issue 29): the parsers of the three Kafka tools' outputs (core/scenario/import/),
 * each on its fixture (test/fixtures/import/, in the format TopicCommand, ConfigCommand and
 * LogDirsCommand print) and on broken and partial variants, which are refused with one line
 * naming the input, the line and what is wrong; the scenario built; and the round trip
 * through the CLI: import the fixtures, `validate` the file, `run` it, and find the
 * fixtures' assignment, leaders, ISR, zones and sizes in the run's state at t = 1 ms.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { detectFormat } from '../core/scenario/import/common.js';
import { parseConfigsDescribe } from '../core/scenario/import/configs.js';
import { parseLogDirs } from '../core/scenario/import/log-dirs.js';
import { parseTopicsDescribe, splitConfigs } from '../core/scenario/import/topics.js';
import { IMPORT_DEFAULTS, type ImportInput, type ImportOptions, buildImport } from '../core/scenario/import/build.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { main } from '../src/cli/main.js';
import { IMPORT_MARKER } from '../src/cli/import.js';

const DIR = join(__dirname, 'fixtures', 'import');
const read = (f: string) => readFileSync(join(DIR, f), 'utf8');
const TOPICS = read('topics.txt');
const CONFIGS = read('configs.txt');
const LOG_DIRS = read('log-dirs.txt');
const MiB = 1024 ** 2;

const tmp = mkdtempSync(join(tmpdir(), 'import-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

function input(over: Partial<{ topics: string; configs: string[]; logDirs: string | null }> = {}): ImportInput {
  return {
    topics: { text: over.topics ?? TOPICS, source: 'topics.txt' },
    configs: (over.configs ?? [CONFIGS]).map((text, i) => ({ text, source: i === 0 ? 'configs.txt' : `configs${i + 1}.txt` })),
    logDirs: over.logDirs === null ? null : { text: over.logDirs ?? LOG_DIRS, source: 'log-dirs.txt' },
  };
}

function build(over: Parameters<typeof input>[0] = {}, options: Partial<ImportOptions> = {}) {
  return buildImport(input(over), { ...IMPORT_DEFAULTS, ...options });
}

function refused(over: Parameters<typeof input>[0] = {}, options: Partial<ImportOptions> = {}): string {
  const r = build(over, options);
  if (r.ok) throw new Error('expected a refusal');
  expect(r.problem).not.toContain('\n');
  return r.problem;
}

describe('kafka-topics.sh --describe (TopicCommand)', () => {
  test('the fixture: topics, partitions, leaders, ISR, a reassignment, Configs', () => {
    const r = parseTopicsDescribe(TOPICS, 'topics.txt');
    if (!r.ok) throw new Error(r.problem);
    expect(r.value.map((t) => t.name)).toEqual(['__consumer_offsets', 'clicks', 'orders']);
    const orders = r.value[2];
    expect(orders).toMatchObject({ topicId: 'vNl0ovzVQUS2uPjbwMj2Ng', partitionCount: 3, replicationFactor: 3, line: 5 });
    expect(orders.configs).toContainEqual({ name: 'remote.storage.enable', value: 'true' });
    expect(orders.partitions.map((p) => [p.partition, p.leader, p.replicas, p.isr])).toEqual([
      [0, 1, [1, 2, 3], [1, 2, 3]],
      [1, 3, [2, 3, 1], [3, 1, 2]],
      [2, 3, [3, 1, 2], [3, 1]],
    ]);
    const clicks = r.value[1];
    expect(clicks.configs).toEqual([
      { name: 'cleanup.policy', value: 'compact,delete' },
      { name: 'max.message.bytes', value: '2097152' },
    ]);
    expect(clicks.partitions[0]).toMatchObject({ adding: [3], removing: [1], elr: [], lastKnownElr: [] });
  });

  test('tabs turned into spaces by a terminal copy read the same', () => {
    const spaced = parseTopicsDescribe(TOPICS.replace(/\t/g, '   '), 't');
    const tabbed = parseTopicsDescribe(TOPICS, 't');
    expect(spaced).toEqual(tabbed);
  });

  test('a value with commas stays whole in Configs:', () => {
    expect(splitConfigs('leader.replication.throttled.replicas=0:1,1:2,segment.bytes=1048576')).toEqual([
      { name: 'leader.replication.throttled.replicas', value: '0:1,1:2' },
      { name: 'segment.bytes', value: '1048576' },
    ]);
  });

  test('Leader: none and Elr: N/A are read', () => {
    const text = 'Topic: t\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: \n\tTopic: t\tPartition: 0\tLeader: none\tReplicas: 1,2\tIsr: \tElr: N/A\tLastKnownElr: N/A\n';
    const r = parseTopicsDescribe(text, 't');
    if (!r.ok) throw new Error(r.problem);
    expect(r.value[0].partitions[0]).toMatchObject({ leader: null, isr: [], elr: null, lastKnownElr: null });
  });

  test('broken and partial outputs: one line naming the line and what is wrong', () => {
    const lines = TOPICS.split('\n');
    const cases: Array<[string, RegExp]> = [
      // A partition line left out (the last one).
      [lines.filter((l) => !l.includes('Partition: 2')).join('\n'), /^t line 5: topic orders has PartitionCount: 3 but 2 partition lines follow it \(partition 2 missing\)/],
      // Filtered output (--under-replicated-partitions): no topic lines.
      [lines.filter((l) => l.startsWith('\t')).join('\n'), /^t line 1: a partition line of topic __consumer_offsets with no "Topic: __consumer_offsets  PartitionCount: \.\.\." line before it/],
      // A line cut in the middle.
      [TOPICS.replace('\tIsr: 3,1\tElr: \tLastKnownElr: ', ''), /^t line 8: partition line without "Isr:"/],
      [TOPICS.replace('Isr: 3,1\t', 'Isr: 3,x\t'), /^t line 8: Isr: expected broker ids separated by commas, got "3,x"/],
      [TOPICS.replace('Isr: 3,1\t', 'Isr: 3,4\t'), /^t line 8: broker 4 is in the Isr or a reassignment of orders-2 but not in its Replicas \(3,1,2\)/],
      [TOPICS.replace('ReplicationFactor: 3\tConfigs: min', 'Configs: min'), /^t line 5: topic line of orders without "ReplicationFactor:"/],
      ['something else\n', /^t line 1: expected a topic line/],
      ['', /^t: empty: expected the output of kafka-topics.sh --describe/],
      [LOG_DIRS, /^t line 1: this is the output of kafka-log-dirs.sh --describe \(LogDirsCommand\), not of kafka-topics.sh --describe \(TopicCommand\): give it as --log-dirs$/],
      [CONFIGS, /^t line 1: this is the output of kafka-configs.sh --describe --all \(ConfigCommand\), not of kafka-topics.sh --describe \(TopicCommand\): give it as --configs$/],
    ];
    for (const [text, want] of cases) {
      const r = parseTopicsDescribe(text, 't');
      expect(r.ok, want.source).toBe(false);
      if (!r.ok) expect(r.problem).toMatch(want);
    }
  });

  test('the partial fixture (a partition missing) is refused by the file name and line', () => {
    const r = parseTopicsDescribe(read('topics-partial.txt'), 'topics-partial.txt');
    expect(r).toEqual({ ok: false, problem: expect.stringMatching(/^topics-partial\.txt line 1: topic orders has PartitionCount: 3 but 2 partition lines/) });
  });
});

describe('kafka-configs.sh --describe --all (ConfigCommand)', () => {
  test('the fixture: topics, brokers, the cluster defaults, sources and synonyms', () => {
    const r = parseConfigsDescribe(CONFIGS, 'configs.txt');
    if (!r.ok) throw new Error(r.problem);
    expect([...r.value.topics.keys()]).toEqual(['clicks', 'orders']);
    expect([...r.value.brokers.keys()]).toEqual([1, 2, 3]);
    const seg = r.value.topics.get('orders')!.entries.get('segment.bytes')!;
    expect(seg).toMatchObject({ value: '1048576', source: 'DYNAMIC_TOPIC_CONFIG', sensitive: false });
    expect(seg.synonyms).toEqual([
      { source: 'DYNAMIC_TOPIC_CONFIG', name: 'segment.bytes', value: '1048576' },
      { source: 'DEFAULT_CONFIG', name: 'log.segment.bytes', value: '1073741824' },
    ]);
    // A synonym's value with commas; a sensitive value printed as null.
    expect(r.value.topics.get('clicks')!.entries.get('cleanup.policy')!.synonyms[0].value).toBe('compact,delete');
    expect(r.value.brokers.get(1)!.entries.get('ssl.key.password')).toMatchObject({ value: null, sensitive: true });
    expect(r.value.brokers.get(2)!.entries.get('broker.rack')!.value).toBe('use1-az2');
    expect(r.value.brokerDefaults!.entries.get('replica.fetch.max.bytes')!.source).toBe('DYNAMIC_DEFAULT_BROKER_CONFIG');
  });

  test('broken and partial outputs', () => {
    const cases: Array<[string, RegExp]> = [
      [CONFIGS.replace(' sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576, DEFAULT_CONFIG:log.segment.bytes=1073741824}', ''), /^c line 24: expected a config line "name=value sensitive=true\|false synonyms=\{SOURCE:name=value, \.\.\.\}"/],
      [CONFIGS.split("\n").slice(1).join("\n"), /^c line 1: a config line before any "All configs for ... are:" header: which topic or broker it belongs to is missing$/],
      [CONFIGS.replace('DYNAMIC_TOPIC_CONFIG:segment', 'SOMEWHERE:segment'), /^c line 24: synonyms of segment.bytes: expected SOURCE:name=value/],
      [CONFIGS + "All configs for broker 2 are:\n", /^c line 65: the configs of broker 2 are given twice \(first at line 38\)/],
      [TOPICS, /^c line 1: this is the output of kafka-topics.sh --describe \(TopicCommand\)/],
    ];
    for (const [text, want] of cases) {
      const r = parseConfigsDescribe(text, 'c');
      expect(r.ok, want.source).toBe(false);
      if (!r.ok) expect(r.problem).toMatch(want);
    }
  });
});

describe('kafka-log-dirs.sh --describe (LogDirsCommand)', () => {
  test('the fixture: two log dirs a broker, sizes, a future replica', () => {
    const r = parseLogDirs(LOG_DIRS, 'log-dirs.txt');
    if (!r.ok) throw new Error(r.problem);
    expect(r.value.jsonLine).toBe(3);
    expect([...r.value.brokers.keys()]).toEqual([1, 2, 3]);
    expect(r.value.brokers.get(1)!.map((d) => d.logDir)).toEqual(['/data/d1', '/data/d2']);
    const b2 = r.value.brokers.get(2)!;
    expect(b2[1].replicas).toContainEqual({ topic: 'orders', partition: 1, size: MiB, offsetLag: 0, isFuture: true });
    // The JSON alone (the two lines before it left out), or reformatted, reads the same.
    const json = LOG_DIRS.split('\n')[2];
    expect(parseLogDirs(json, 'x')).toMatchObject({ ok: true, value: { jsonLine: 1 } });
    expect(parseLogDirs(JSON.stringify(JSON.parse(json), null, 2), 'x').ok).toBe(true);
  });

  test('broken and partial outputs', () => {
    const json = LOG_DIRS.split('\n')[2];
    const cases: Array<[string, RegExp]> = [
      [read('log-dirs-truncated.txt'), /^l line 3: not valid JSON \(.*\): the JSON of kafka-log-dirs.sh --describe is cut or changed; paste its whole last line$/],
      [LOG_DIRS.replace('"version":1', '"version":2'), /^l line 3: version: expected 1 \(the only version LogDirsCommand prints\), got "2"/],
      [LOG_DIRS.replace('"size":3500000', '"size":"3.5MB"'), /^l line 3: brokers\[0\]\.logDirs\[0\]\.partitions\[0\]\.size: expected the bytes of orders-0's local log, got/],
      [LOG_DIRS.replace('"partition":"orders-0"', '"partition":"orders"'), /^l line 3: brokers\[0\]\.logDirs\[0\]\.partitions\[0\]\.partition: expected "topic-N"/],
      [json.replace('"brokers"', '"nodes"').replace('{', '{"brokers2":0,'), /^l line 1: brokers: missing/],
      ['Querying brokers for log directories information\n', /^l: no JSON/],
      [TOPICS, /^l line 1: this is the output of kafka-topics.sh --describe \(TopicCommand\), not of kafka-log-dirs.sh --describe \(LogDirsCommand\): give it as --topics$/],
    ];
    for (const [text, want] of cases) {
      const r = parseLogDirs(text, 'l');
      expect(r.ok, want.source).toBe(false);
      if (!r.ok) expect(r.problem).toMatch(want);
    }
  });

  test('each format is recognised by its first line', () => {
    expect(detectFormat(TOPICS)).toEqual({ format: 'topics', line: 1 });
    expect(detectFormat(CONFIGS)).toEqual({ format: 'configs', line: 1 });
    expect(detectFormat(LOG_DIRS)).toEqual({ format: 'log-dirs', line: 1 });
    expect(detectFormat('hello')).toBeNull();
  });
});

describe('the scenario built', () => {
  test('brokers renumbered from 0, racks as zones, leader first then the ISR, out-of-ISR replicas added at t=0', () => {
    const r = build({}, { tieredByTopic: { orders: 10 * MiB } });
    if (!r.ok) throw new Error(r.problem);
    const v = r.value;
    expect(v.brokers).toEqual([
      { clusterId: 1, id: 0, rack: 'use1-az1' },
      { clusterId: 2, id: 1, rack: 'use1-az2' },
      { clusterId: 3, id: 2, rack: 'use1-az3' },
    ]);
    expect(v.zones).toEqual(['use1-az1', 'use1-az2', 'use1-az3']);
    expect(v.partitions.map((p) => [`${p.topic}-${p.partition}`, p.replicas, p.outOfSync, p.localBytes, p.remoteBytes])).toEqual([
      ['clicks-0', [1, 0], [2], 800000 + 12345, 0],
      ['orders-0', [0, 1, 2], [], 3500000, 10 * MiB],
      ['orders-1', [2, 1, 0], [], 2 * MiB, 10 * MiB],
      ['orders-2', [2, 0], [1], 1500000, 10 * MiB],
    ]);
    const parsed = parseScenarioText(v.body, 'x.yaml');
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const s = parsed.scenario;
    expect(s.timeline.map((e) => e.action)).toEqual([
      { kind: 'addReplica', topic: 'clicks', partition: 0, broker: 2 },
      { kind: 'addReplica', topic: 'orders', partition: 2, broker: 1 },
    ]);
    // Configs under Kafka's names: the dynamic and static ones written, each with its source; defaults told apart.
    expect(s.config).toEqual({ 'follower.fetch.last.tiered.offset.enable': true, 'remote.log.storage.system.enable': true, 'replica.fetch.max.bytes': 2097152 });
    expect(s.topics[1].config).toEqual({ 'local.retention.bytes': 4194304, 'min.insync.replicas': 2, 'remote.storage.enable': true, 'segment.bytes': MiB });
    expect(s.topics[0].config).toEqual({ 'cleanup.policy': 'compact,delete' });
    expect(v.body).toContain('segment.bytes: 1048576   # set on the topic (DYNAMIC_TOPIC_CONFIG)');
    expect(v.body).toContain('replica.fetch.max.bytes: 2097152   # set dynamically for every broker (DYNAMIC_DEFAULT_BROKER_CONFIG)');
    expect(v.body).toContain('remote.log.storage.system.enable: true   # from the brokers\' server.properties (STATIC_BROKER_CONFIG)');
    expect(v.body).toMatch(/# at Kafka's default, as the model's \(DEFAULT_CONFIG\): cleanup.policy, local.retention.ms, remote.log.copy.disable, retention.bytes, retention.ms, segment.ms/);
    // orders-0: 3,500,000 bytes of 1 KiB records in 1 MiB segments: 3 rolled and uploaded, 345 records active; 10 MiB remote only.
    const seg = s.topics[1].initial[0].segments;
    expect(seg.filter((x) => x.tier === 'remote').length).toBe(10);
    expect(seg.filter((x) => x.tier === 'both').length).toBe(3);
    expect(seg[seg.length - 1]).toEqual({ baseOffset: 13312, endOffset: 13312 + 345 - 1, tier: 'local' });
    // clicks is not tiered: every segment local.
    expect(s.topics[0].initial[0].segments.every((x) => x.tier === 'local')).toBe(true);
    expect(v.assumptions.join('\n')).toMatch(/ignored {4}orders: topic configs set but not modelled: compression.type/);
    expect(v.assumptions.join('\n')).toMatch(/future replicas .*orders-1 on broker 2 \(\/data\/d2, 1,048,576 bytes; the current one in \/data\/d1\)/);
    expect(v.assumptions.join('\n')).toMatch(/ignored {4}broker configs set but not modelled: broker.id, listeners, log.dirs, ssl.key.password/);
  });

  test('without --tiered the remote part is empty, and said so; without log dirs the logs are empty; without configs racks are unknown', () => {
    const r = build({ configs: [], logDirs: null }, { topics: ['orders'] });
    if (!r.ok) throw new Error(r.problem);
    const a = r.value.assumptions.join('\n');
    expect(a).toMatch(/remote {5}orders: nothing in remote storage only \(kafka-log-dirs.sh reports local logs only; give --tiered SIZE or --tiered orders=SIZE, per partition\)/);
    expect(a).toMatch(/sizes {6}no --log-dirs: every partition starts empty/);
    expect(a).toMatch(/zones {6}racks unknown .*every broker in one zone, "a"/);
    expect(r.value.zones).toEqual(['a']);
    // Topic configs from kafka-topics.sh's Configs: alone.
    const parsed = parseScenarioText(r.value.body, 'x');
    if (!parsed.ok) throw new Error('refused');
    expect(parsed.scenario.topics[0].config).toMatchObject({ 'remote.storage.enable': true, 'segment.bytes': MiB, 'min.insync.replicas': 2 });
  });

  test('"Dynamic configs" (describe without --all): the dynamic values with their sources, the rest from kafka-topics.sh and Kafka\'s defaults; no racks, said so', () => {
    const dynamic = [
      'Dynamic configs for topic orders are:',
      '  remote.storage.enable=true sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:remote.storage.enable=true}',
      '  segment.bytes=1048576 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576, DEFAULT_CONFIG:log.segment.bytes=1073741824}',
      'Dynamic configs for broker 1 are:',
      'Dynamic configs for broker 2 are:',
      'Dynamic configs for broker 3 are:',
      'Default configs for brokers in the cluster are:',
      '  replica.fetch.max.bytes=2097152 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:replica.fetch.max.bytes=2097152}',
    ].join('\n');
    const r = build({ configs: [dynamic] }, { topics: ['orders'] });
    if (!r.ok) throw new Error(r.problem);
    expect(r.value.body).toContain('segment.bytes: 1048576   # set on the topic (DYNAMIC_TOPIC_CONFIG)');
    // min.insync.replicas=2 is in kafka-topics.sh's Configs: (not at Kafka's default) but not among the dynamic ones printed.
    expect(r.value.body).toContain("min.insync.replicas: 2   # not at Kafka's default (kafka-topics.sh Configs:)");
    expect(r.value.body).toContain('replica.fetch.max.bytes: 2097152   # set dynamically for every broker (DYNAMIC_DEFAULT_BROKER_CONFIG)');
    expect(r.value.assumptions.join('\n')).toMatch(/zones {6}no broker has broker.rack \(or the configs are "Dynamic configs", which leave it out: give --all\): every broker in one zone, "a"/);
  });

  test('broker ids already 0 .. n-1 are kept as they are', () => {
    const renumber = (t: string) => t.replace(/(Leader|Replicas|Isr|Adding Replicas|Removing Replicas): ([\d,]+)/g, (_m, k: string, ids: string) => `${k}: ${ids.split(',').map((x) => Number(x) - 1).join(',')}`);
    const r = build({ topics: renumber(TOPICS), configs: [], logDirs: null });
    if (!r.ok) throw new Error(r.problem);
    expect(r.value.brokers.map((b) => [b.clusterId, b.id])).toEqual([[0, 0], [1, 1], [2, 2]]);
    expect(r.value.assumptions[0]).toBe('brokers    3 brokers (ids 0, 1, 2)');
    expect(r.value.body).not.toContain("The cluster's broker ids");
  });

  test('refusals name the input, the line and what is missing', () => {
    const noLeader = TOPICS.replace('Partition: 1\tLeader: 3', 'Partition: 1\tLeader: none');
    expect(refused({ topics: noLeader })).toMatch(/^topics.txt line 7: orders-1 has no leader \(Leader: none\): the model starts every partition with a leader; leave orders out with --topic naming the others$/);
    // One broker's configs missing.
    const twoBrokers = CONFIGS.replace(/All configs for broker 3 are:[\s\S]*?(?=Default configs)/, '');
    expect(refused({ configs: [twoBrokers] })).toMatch(/^configs.txt: the configs of broker 3 are missing \(brokers 1, 2 are given\)/);
    // A rack missing on one broker.
    expect(refused({ configs: [CONFIGS.replace('  broker.rack=use1-az3 sensitive=false synonyms={STATIC_BROKER_CONFIG:broker.rack=use1-az3}\n', '')] })).toMatch(/^configs.txt line 50: broker 3 has no broker.rack while broker 1 has use1-az1/);
    // Brokers that differ in a broker config the model holds once.
    const differ = CONFIGS.replace(/(All configs for broker 3 are:[\s\S]*?)replica.fetch.max.bytes=2097152 sensitive=false synonyms=\{DYNAMIC_DEFAULT_BROKER_CONFIG:replica.fetch.max.bytes=2097152/, '$1replica.fetch.max.bytes=4194304 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:replica.fetch.max.bytes=4194304');
    expect(refused({ configs: [differ] })).toMatch(/^configs.txt line \d+: replica.fetch.max.bytes=4194304 on broker 3, but 2097152 on broker 1 \(line \d+\): the model has one value/);
    // The two outputs disagree.
    expect(refused({ configs: [CONFIGS.replace('min.insync.replicas=2 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=2', 'min.insync.replicas=3 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:min.insync.replicas=3')] })).toMatch(
      /^topics.txt line 5: orders's min.insync.replicas=2, but 3 in configs.txt line \d+: the two outputs are of different moments/,
    );
    // A value Kafka refuses.
    expect(refused({ topics: TOPICS.replace('segment.bytes=1048576,compression', 'segment.bytes=1000,compression'), configs: [] })).toMatch(/^topics.txt line 5: orders's segment.bytes: Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576$/);
    // Log dirs without the leader's replica, or without a broker.
    expect(refused({ logDirs: LOG_DIRS.replace('{"partition":"orders-0","size":3500000,"offsetLag":0,"isFuture":false},{"partition":"__consumer', '{"partition":"__consumer') })).toMatch(
      /^log-dirs.txt line 3: no replica of orders-0 on broker 1, its leader \(topics.txt line 6\) \(was --topic-list given\?\)$/,
    );
    const only12 = JSON.parse(LOG_DIRS.split('\n')[2]);
    only12.brokers = only12.brokers.filter((b: { broker: number }) => b.broker !== 3);
    expect(refused({ logDirs: JSON.stringify(only12) })).toMatch(/^log-dirs.txt line 1: no broker 3 \(the leader of orders-1, topics.txt line 7\): paste kafka-log-dirs.sh --describe for every broker/);
    // A log dir with an error where the leader's replica would be.
    const errored = JSON.parse(LOG_DIRS.split('\n')[2]);
    errored.brokers[0].logDirs[0] = { logDir: '/data/d1', error: 'org.apache.kafka.common.errors.KafkaStorageException', partitions: [] };
    expect(refused({ logDirs: JSON.stringify(errored) })).toMatch(/no replica of orders-0 on broker 1, its leader .*; its log dirs with an error: \/data\/d1 \(org.apache.kafka.common.errors.KafkaStorageException\)$/);
    // Options that name what is not there.
    expect(refused({}, { topics: ['payments'] })).toMatch(/^topics.txt: --topic payments: no such topic here \(it describes __consumer_offsets, clicks, orders\)$/);
    expect(refused({}, { tieredByTopic: { clicks: MiB } })).toMatch(/^topics.txt line 3: --tiered clicks=\.\.\.: clicks is not tiered/);
  });

  test('a cluster too large for a scenario file is refused with --topic offered', () => {
    const big = JSON.parse(LOG_DIRS.split('\n')[2]);
    for (const b of big.brokers) for (const d of b.logDirs) for (const p of d.partitions) if (p.partition.startsWith('orders')) p.size = 3 * 1024 * MiB;
    expect(refused({ logDirs: JSON.stringify(big) })).toMatch(/^topics.txt: the scenario would be [\d,]+ characters, more than a scenario file holds \(131,072: docs\/scenario-format.md, Limits\); the most segments: orders [\d,]+, clicks 1: import fewer topics with --topic NAME$/);
  });
});

describe('the command, and the round trip', () => {
  const f = (n: string) => join(DIR, n);

  test('import the fixtures, validate the file, run it: the run holds the fixtures\' assignment, leaders, ISR, zones and sizes', async () => {
    const out = join(tmp, 'cluster.yaml');
    const r = await cli('import', '--topics', f('topics.txt'), '--configs', f('configs.txt'), '--log-dirs', f('log-dirs.txt'), '--tiered', 'orders=10MiB', '--until', '1', '--out', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^import: 4 partitions of 2 topic\(s\) on 3 brokers; assumed:/);
    expect(r.stdout).toContain(`scenario   written to ${out}`);
    const text = readFileSync(out, 'utf8');
    expect(text.startsWith(`${IMPORT_MARKER}: npm run sim -- import --topics `)).toBe(true);
    expect((await cli('validate', out)).code).toBe(0);
    const run = await cli('run', out, '--json');
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout) as {
      config: { zones: string[]; topics: Record<string, Record<string, unknown>> } & Record<string, unknown>;
      partitions: Array<{ topic: string; partition: number; leader: number; isr: number[]; replicas: Array<{ broker: number; logEndOffset: number; localLogStartOffset: number; logStartOffset: number; addedAtMs: number }> }>;
    };
    // Cluster ids 1, 2, 3 are the model's 0, 1, 2; racks use1-az1..3.
    const id = (cluster: number) => cluster - 1;
    expect(json.config.zones).toEqual(['use1-az1', 'use1-az2', 'use1-az3']);
    expect(json.config['replica.fetch.max.bytes']).toBe(2097152);
    expect(json.config['follower.fetch.last.tiered.offset.enable']).toBe(true);
    expect(json.config.topics.orders).toMatchObject({ 'segment.bytes': MiB, 'remote.storage.enable': true, 'min.insync.replicas': 2, 'local.retention.bytes': 4194304 });
    const topics = parseTopicsDescribe(readFileSync(f('topics.txt'), 'utf8'), 't');
    if (!topics.ok) throw new Error(topics.problem);
    const sizes: Record<string, number> = { 'orders-0': 3500000, 'orders-1': 2 * MiB, 'orders-2': 1500000, 'clicks-0': 812345 };
    for (const t of topics.value.filter((x) => x.name !== '__consumer_offsets')) {
      for (const p of t.partitions) {
        const got = json.partitions.find((x) => x.topic === t.name && x.partition === p.partition)!;
        expect(got.leader, `${t.name}-${p.partition}`).toBe(id(p.leader!));
        expect([...got.isr].sort(), `${t.name}-${p.partition}`).toEqual(p.isr.map(id).sort());
        expect(got.replicas.map((r) => r.broker).sort()).toEqual(p.replicas.map(id).sort());
        // The leader's local log: the log-dirs size in whole 1 KiB records.
        const leader = got.replicas.find((r) => r.broker === got.leader)!;
        const records = Math.floor(sizes[`${t.name}-${p.partition}`] / 1024);
        expect(leader.logEndOffset - leader.localLogStartOffset, `${t.name}-${p.partition}`).toBe(records);
        // The in-sync followers hold the same log; the others were added empty at t=0.
        for (const r of got.replicas.filter((x) => x.broker !== got.leader)) {
          if (p.isr.map(id).includes(r.broker)) expect(r.logEndOffset).toBe(leader.logEndOffset);
          else expect(r.addedAtMs).toBe(0);
        }
      }
    }
    // orders' 10 MiB per partition in remote storage only: the log starts 10,240 records below the local log.
    const o0 = json.partitions.find((x) => x.topic === 'orders' && x.partition === 0)!.replicas.find((r) => r.broker === 0)!;
    expect(o0.localLogStartOffset - o0.logStartOffset).toBe(10240);
  });

  test('without --out the scenario goes to stdout and the assumptions to stderr; --out never writes over an input or a file import did not write', async () => {
    const r = await cli('import', '--topics', f('topics.txt'), '--topic', 'orders');
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith(IMPORT_MARKER)).toBe(true);
    expect(r.stderr).toMatch(/zones {6}racks unknown/);
    const same = await cli('import', '--topics', f('topics.txt'), '--out', f('topics.txt'));
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/--out .*topics.txt is an input/);
    const mine = join(tmp, 'mine.yaml');
    writeFileSync(mine, 'name: mine\n');
    const over = await cli('import', '--topics', f('topics.txt'), '--out', mine);
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(/exists and was not written by import/);
    expect(readFileSync(mine, 'utf8')).toBe('name: mine\n');
  });

  test('a scenario that run takes but compare and the page refuse (they keep every trace entry) is written, with a note saying so', async () => {
    const out = join(tmp, 'long.yaml');
    const r = await cli('import', '--topics', f('topics.txt'), '--until', '20000000', '--out', out);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nnote: compare, report and the page keep every trace entry and refuse .*long\.yaml as it stands \(the run would take about [\d,]+ kernel events, more than the limit of 500,000 .*\); run streams its trace and takes it, or import fewer topics with --topic$/);
    expect((await cli('validate', out)).code).toBe(0);
  });

  test('--help names the three tools and their Kafka classes; the main help lists import', async () => {
    const r = await cli('import', '--help');
    expect(r.code).toBe(0);
    for (const s of ['kafka-topics.sh --describe (TopicCommand)', 'kafka-configs.sh --describe --all', '(ConfigCommand)', 'kafka-log-dirs.sh --describe (LogDirsCommand)', '--tiered TOPIC=SIZE']) expect(r.stdout).toContain(s);
    expect((await cli('--help')).stdout).toMatch(/\n  import {10}a scenario from a real cluster/);
  });

  test('bad input: exit 2, one line naming the file, the line and the problem', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--topics', f('log-dirs.txt')], /^import: .*log-dirs.txt line 1: this is the output of kafka-log-dirs.sh --describe \(LogDirsCommand\), not of kafka-topics.sh --describe \(TopicCommand\): give it as --log-dirs$/],
      [['--topics', f('topics-partial.txt')], /^import: .*topics-partial.txt line 1: topic orders has PartitionCount: 3 but 2 partition lines/],
      [['--topics', f('topics.txt'), '--configs', f('configs-partial.txt')], /^import: .*configs-partial.txt line 4: expected a config line/],
      [['--topics', f('topics.txt'), '--log-dirs', f('log-dirs-truncated.txt')], /^import: .*log-dirs-truncated.txt line 3: not valid JSON/],
      [['--topics', join(tmp, 'nope.txt')], /^tierscope: --topics .*nope.txt: no such file\. See --help\.$/],
      [['--configs', f('configs.txt')], /^tierscope: import needs --topics FILE \(the output of kafka-topics.sh --describe\)\. See --help\.$/],
      [['--topics', f('topics.txt'), '--tiered', '5Mb'], /^tierscope: --tiered 5Mb: .*bits/],
      [['--topics', f('topics.txt'), '--frobnicate', '1'], /^tierscope: unknown option --frobnicate for import\. See --help\.$/],
    ];
    for (const [args, want] of cases) {
      const r = await cli('import', ...args);
      expect(r.code, want.source).toBe(2);
      expect(r.stderr.split('\n').length, r.stderr).toBe(1);
      expect(r.stderr).toMatch(want);
      expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    }
  });
});
