/**
 * Kafka 4.3's validation of a topic's configs (core/domain/log-config-validation.ts): each
 * LogConfig rule refuses at topic creation (bad input, one line with Kafka's message) and on
 * a setConfig during a run (INVALID_CONFIG, the topic's configs unchanged, narrated), and
 * what Kafka accepts passes. The conformance cases conformance/config-*.yaml check each rule
 * on a run; this file checks the creation side and the pieces.
 */
import { describe, expect, test } from 'vitest';
import { defaultTopicConfig, type TopicConfig } from '../core/domain/config.js';
import { alterTopicConfigs, topicConfigRefusal } from '../core/domain/log-config-validation.js';
import { narrate } from '../core/narrate/narrate.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';

function topic(config: Record<string, unknown>, brokerConfig: Record<string, unknown> = {}, timeline: unknown[] = []) {
  return parseScenarioText(JSON.stringify({
    name: 'v', brokers: 1, config: brokerConfig, until: 1000, timeline,
    topics: [{ name: 't', partitions: 1, replicas: [[0]], config }],
  }), 'v.json');
}

function cfg(values: Partial<Record<keyof TopicConfig, unknown>>): TopicConfig {
  return { ...defaultTopicConfig(), ...values } as TopicConfig;
}

describe('topic creation: what Kafka refuses is bad input with its reason', () => {
  test.each([
    [{ 'remote.storage.enable': true, 'cleanup.policy': 'compact' }, {}, 'validateRemoteStorageRequiresDeleteCleanupPolicy', 'Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.'],
    [{ 'remote.storage.enable': true, 'cleanup.policy': 'delete,compact' }, {}, 'validateRemoteStorageRequiresDeleteCleanupPolicy', 'Remote log storage only supports'],
    [{ 'remote.storage.enable': true, 'retention.ms': 1000, 'local.retention.ms': 2000 }, {}, 'validateRemoteStorageRetentionTime', 'Invalid value 2000 for configuration local.retention.ms: Value must not be more than retention.ms property value: 1000'],
    [{ 'remote.storage.enable': true, 'local.retention.ms': -1 }, {}, 'validateRemoteStorageRetentionTime', 'Invalid value -1 for configuration local.retention.ms: Value must not be -1 as retention.ms value is set as 604800000.'],
    [{ 'remote.storage.enable': true, 'retention.bytes': 100, 'local.retention.bytes': 200 }, {}, 'validateRemoteStorageRetentionSize', 'Invalid value 200 for configuration local.retention.bytes: Value must not be more than retention.bytes property value: 100'],
    [{ 'remote.storage.enable': true, 'retention.bytes': 100, 'local.retention.bytes': -1 }, {}, 'validateRemoteStorageRetentionSize', 'Value must not be -1 as retention.bytes value is set as 100.'],
    [{ 'remote.storage.enable': true, 'remote.log.copy.disable': true, 'local.retention.ms': 1000 }, {}, 'validateRetentionConfigsWhenRemoteCopyDisabled', 'the `local.retention.ms` and `retention.ms` must be set to the identical value'],
    [{ 'remote.storage.enable': true }, { 'remote.log.storage.system.enable': false }, 'validateRemoteStorageOnlyIfSystemEnabled', 'Tiered Storage functionality is disabled in the broker.'],
    [{ 'min.compaction.lag.ms': 10, 'max.compaction.lag.ms': 5 }, {}, 'validateValues', 'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)'],
  ])('%j (broker %j): %s', (config, broker, check, message) => {
    const r = topic(config, broker);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0].path).toBe('topics[0].config');
    expect(r.problems[0].message).toContain(message);
    expect(r.problems[0].message).toContain(`LogConfig.${check}, Kafka 4.3`);
    expect(r.problems[0].message).not.toContain('\n');
  });

  test.each<[Record<string, unknown>, Record<string, unknown>?]>([
    [{ 'remote.storage.enable': true, 'local.retention.ms': -2, 'local.retention.bytes': -2 }],
    [{ 'remote.storage.enable': true, 'retention.ms': -1, 'local.retention.ms': -1 }],
    [{ 'remote.storage.enable': true, 'retention.ms': -1, 'local.retention.ms': 5000 }],
    [{ 'remote.storage.enable': true, 'retention.bytes': 100, 'local.retention.bytes': 100 }],
    [{ 'remote.storage.enable': true, 'remote.log.copy.disable': true, 'retention.bytes': 100, 'local.retention.bytes': 100 }],
    // Not tiered: the remote rules do not apply, and a compacted topic is Kafka's to accept.
    [{ 'cleanup.policy': 'compact', 'retention.ms': 1000, 'local.retention.ms': 5000 }],
    // Tiered storage off on the brokers refuses only a tiered topic.
    [{ 'remote.storage.enable': false }, { 'remote.log.storage.system.enable': false }],
  ])('accepted: %j', (config, broker = {}) => {
    const r = topic(config, broker);
    expect(r.ok, r.ok ? '' : JSON.stringify(r.problems)).toBe(true);
  });

  test('a topic created with remote.storage.enable false is not "turning it off"', () => {
    expect(topic({ 'remote.storage.enable': false }).ok).toBe(true);
  });
});

describe('alteration: the merged configs are checked, as ConfigurationControlManager does', () => {
  test('turning tiering off needs remote.log.delete.on.disable in the merged configs', () => {
    const tieredTopic = cfg({ 'remote.storage.enable': true });
    const off = alterTopicConfigs(tieredTopic, { 'remote.storage.enable': false }, true);
    expect(off.ok).toBe(false);
    if (!off.ok) expect(off.refusal).toMatchObject({ error: 'INVALID_CONFIG', check: 'validateTurningOffRemoteStorageWithDelete' });
    expect(alterTopicConfigs(tieredTopic, { 'remote.storage.enable': false, 'remote.log.delete.on.disable': true }, true).ok).toBe(true);
    // Set earlier and kept, it counts too: Kafka validates the merged configs.
    const withDelete = cfg({ 'remote.storage.enable': true, 'remote.log.delete.on.disable': true });
    expect(alterTopicConfigs(withDelete, { 'remote.storage.enable': false }, true).ok).toBe(true);
  });

  test('a refused change leaves the configs as they were; broker keys in the change are ignored', () => {
    const c = cfg({ 'remote.storage.enable': true, 'retention.ms': 1000 });
    const before = JSON.stringify(c);
    const r = alterTopicConfigs(c, { 'local.retention.ms': 5000, 'replica.fetch.backoff.ms': 1 }, true);
    expect(r.ok).toBe(false);
    expect(JSON.stringify(c)).toBe(before);
    const ok = alterTopicConfigs(c, { 'local.retention.ms': 500, 'replica.fetch.backoff.ms': 1 }, true);
    expect(ok.ok && ok.next['local.retention.ms']).toBe(500);
    expect(ok.ok && 'replica.fetch.backoff.ms' in ok.next).toBe(false);
  });

  test('the first rule in LogConfig order decides', () => {
    const refusal = topicConfigRefusal(cfg({ 'remote.storage.enable': true, 'cleanup.policy': 'compact', 'retention.ms': 1, 'local.retention.ms': 2 }), false, true);
    expect(refusal?.check).toBe('validateRemoteStorageRequiresDeleteCleanupPolicy');
  });

  test('a run: the refused setConfig is a step; the configs stay; the narration says so', () => {
    const r = topic({ 'remote.storage.enable': true, 'internal.segment.bytes': 51200 }, {}, [
      { at: 100, setConfig: { topic: 't', 'remote.storage.enable': false } },
      { at: 200, setConfig: { 'cleanup.policy': 'compact', 'replica.fetch.backoff.ms': 250 } },
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const k = new Kernel(r.scenario);
    k.runToEnd();
    const json = buildRunJson(k);
    const topics = json.config.topics as Record<string, Record<string, unknown>>;
    expect(topics.t['remote.storage.enable']).toBe(true);
    expect(topics.t['cleanup.policy']).toBe('delete');
    // The broker config of the same setConfig is applied: it is another resource.
    expect(json.config['replica.fetch.backoff.ms']).toBe(250);
    const refused = json.trace.filter((e) => e.type === 'config' && (e as { action?: string }).action === 'refused');
    expect(refused.map((e) => e.atMs)).toEqual([100, 200]);
    const lines = json.trace.map((e) => narrate(e)).filter((l): l is string => l !== null && l.includes('refused'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('config change remote.storage.enable on t refused: INVALID_CONFIG "It is invalid to disable remote storage without deleting remote data.');
    expect(lines[0]).toContain('the topic\'s configs are unchanged');
  });
});
