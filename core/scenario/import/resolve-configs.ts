/**
 * The configs `import` puts in the scenario: of every config the cluster's outputs give,
 * those the model has (core/domain/config.ts: BROKER_CONFIGS, TOPIC_CONFIGS), under Kafka's
 * names, each with where its value comes from (ConfigEntry.ConfigSource: set dynamically,
 * in server.properties, or Kafka's default), so the scenario tells dynamic values from
 * defaults; the others are named as not modelled. Broker configs are cluster-wide in the
 * model: brokers that differ in one are refused with both values, never averaged.
 */
import { BROKER_CONFIGS, UNLIMITED_BYTES_PER_SECOND, type ConfigValue, type ValueSpec, isBrokerConfigKey, kafkaRangeRefusal, topicConfigSpec } from '../../domain/config.js';
import { refusal, type ImportResult } from './common.js';
import type { ConfigLine, ConfigSection, ConfigSource, DescribedConfigs } from './configs.js';
import type { DescribedTopic } from './topics.js';

/** One config as the scenario gets it. */
export interface ResolvedConfig {
  name: string;
  value: ConfigValue;
  /** Where the value comes from: Kafka's ConfigSource, or `TOPIC_DESCRIBE` (kafka-topics.sh's Configs:, which lists the values not at Kafka's default). */
  source: ConfigSource | 'TOPIC_DESCRIBE';
  /** Written into the scenario (false: Kafka's default, the model's too: a comment only). */
  written: boolean;
  /** A note on the value (Long.MAX_VALUE taken as no limit). */
  note?: string;
}

export interface ResolvedConfigs {
  configs: ResolvedConfig[];
  /** Configs set away from Kafka's default that the model does not have. */
  notModelled: string[];
}

/** What each source means, for comments and assumptions. */
export function sourceText(s: ResolvedConfig['source']): string {
  switch (s) {
    case 'DYNAMIC_TOPIC_CONFIG':
      return 'set on the topic (DYNAMIC_TOPIC_CONFIG)';
    case 'DYNAMIC_BROKER_CONFIG':
      return 'set dynamically on the broker (DYNAMIC_BROKER_CONFIG)';
    case 'DYNAMIC_DEFAULT_BROKER_CONFIG':
      return 'set dynamically for every broker (DYNAMIC_DEFAULT_BROKER_CONFIG)';
    case 'STATIC_BROKER_CONFIG':
      return "from the brokers' server.properties (STATIC_BROKER_CONFIG)";
    case 'DEFAULT_CONFIG':
      return "Kafka's default (DEFAULT_CONFIG)";
    case 'TOPIC_DESCRIBE':
      return "not at Kafka's default (kafka-topics.sh Configs:)";
    case 'UNKNOWN':
      return 'source not printed (synonyms={})';
    default:
      return s;
  }
}

/** Kafka's Long.MAX_VALUE, the default of the throttle and quota rates ("no limit"). */
const LONG_MAX = '9223372036854775807';

type Conversion = { ok: true; value: ConfigValue; note?: string } | { ok: false; why: string };

/** A printed value as the model's type, checked as the scenario parser checks it. */
export function convertValue(name: string, spec: ValueSpec, text: string, modelDefault?: ConfigValue): Conversion {
  switch (spec.kind) {
    case 'boolean':
      return text === 'true' || text === 'false' ? { ok: true, value: text === 'true' } : { ok: false, why: `expected true or false, got "${text}"` };
    case 'string': {
      if (spec.oneOf !== undefined && !spec.oneOf.includes(text)) return { ok: false, why: `"${text}" is not one the model has (${spec.oneOf.join(', ')})` };
      const bad = spec.validate?.(text) ?? null;
      return bad === null ? { ok: true, value: text } : { ok: false, why: bad };
    }
    case 'int': {
      if (!/^-?\d+$/.test(text)) return { ok: false, why: `expected a whole number, got "${text}"` };
      if (modelDefault === UNLIMITED_BYTES_PER_SECOND && BigInt(text) >= BigInt(Number.MAX_SAFE_INTEGER)) {
        return { ok: true, value: UNLIMITED_BYTES_PER_SECOND, note: text === LONG_MAX ? 'Long.MAX_VALUE: no limit, the model\'s 2^53-1' : 'past 2^53-1: no limit in the model' };
      }
      const v = Number(text);
      if (!Number.isSafeInteger(v)) return { ok: false, why: `${text} is past the largest number the model holds (2^53-1)` };
      const refused = kafkaRangeRefusal(name, spec, v);
      if (refused !== null) return { ok: false, why: refused };
      if (spec.min !== undefined && v < spec.min) return { ok: false, why: `at least ${spec.min} in the model, got ${v}` };
      if (spec.max !== undefined && v > spec.max) return { ok: false, why: `at most ${spec.max} in the model, got ${v}` };
      return { ok: true, value: v };
    }
  }
}

const sameValue = (a: ConfigValue, b: ConfigValue | undefined) => a === b;

/**
 * The broker configs: every broker's section (`All configs for broker N are:`) and the
 * cluster's dynamic defaults. Returns the modelled configs and the not-modelled ones set
 * away from their default.
 */
export function resolveBrokerConfigs(configs: DescribedConfigs, brokerIds: number[], source: string): ImportResult<ResolvedConfigs> {
  const found = new Map<string, { line: ConfigLine; broker: number | null }>();
  const notModelled = new Set<string>();
  const sections: Array<[number | null, ConfigSection]> = brokerIds.filter((b) => configs.brokers.has(b)).map((b) => [b, configs.brokers.get(b)!]);
  if (configs.brokerDefaults !== null) sections.push([null, configs.brokerDefaults]);
  for (const [broker, section] of sections) {
    for (const e of section.entries.values()) {
      if (!isBrokerConfigKey(e.name)) {
        if (e.source !== 'DEFAULT_CONFIG' && e.name !== 'broker.rack') notModelled.add(e.name);
        continue;
      }
      if (e.value === null) continue;
      const prev = found.get(e.name);
      if (prev === undefined) {
        found.set(e.name, { line: e, broker });
        continue;
      }
      // A broker's own value wins over the cluster default (it was resolved with it); two brokers must agree.
      if (broker === null || prev.broker === null || prev.line.value === e.value) continue;
      return refusal(source, e.line, `${e.name}=${e.value} on broker ${broker}, but ${prev.line.value} on broker ${prev.broker} (line ${prev.line.line}): the model has one value of each broker config for the whole cluster; make the paste agree`);
    }
  }
  const out: ResolvedConfig[] = [];
  for (const [name, { line }] of [...found.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const spec = BROKER_CONFIGS[name as keyof typeof BROKER_CONFIGS];
    const c = convertValue(name, spec, line.value!, spec.default);
    if (!c.ok) return refusal(source, line.line, `${name}: ${c.why}`);
    const written = line.source !== 'DEFAULT_CONFIG' || !sameValue(c.value, spec.default);
    out.push({ name, value: c.value, source: line.source, written, ...(c.note !== undefined ? { note: c.note } : {}) });
  }
  return { ok: true, value: { configs: out, notModelled: [...notModelled].sort() } };
}

/**
 * A topic's configs: its section of the configs output when there is one (every config,
 * with sources), and kafka-topics.sh's `Configs:` (the values not at Kafka's default). When
 * both give a config they must agree.
 */
export function resolveTopicConfigs(
  topic: DescribedTopic,
  section: ConfigSection | undefined,
  topicsSource: string,
  configsSource: string,
): ImportResult<ResolvedConfigs> {
  const out = new Map<string, ResolvedConfig>();
  const notModelled = new Set<string>();
  const add = (name: string, text: string, src: ResolvedConfig['source'], file: string, line: number): { ok: false; problem: string } | null => {
    const spec = topicConfigSpec(name);
    if (spec === undefined) {
      if (src !== 'DEFAULT_CONFIG') notModelled.add(name);
      return null;
    }
    const modelDefault = (spec as { default?: ConfigValue }).default;
    const c = convertValue(name, spec, text, modelDefault);
    if (!c.ok) return refusal(file, line, `${topic.name}'s ${name}: ${c.why}`);
    const written = src !== 'DEFAULT_CONFIG' || !sameValue(c.value, modelDefault);
    out.set(name, { name, value: c.value, source: src, written, ...(c.note !== undefined ? { note: c.note } : {}) });
    return null;
  };
  if (section !== undefined) {
    for (const e of section.entries.values()) {
      if (e.value === null) continue;
      // No synonyms printed: kafka-topics.sh's Configs: lists every value not at Kafka's default, so it says which this is.
      const src = e.source !== 'UNKNOWN' ? e.source : topic.configs.some((c) => c.name === e.name) ? 'TOPIC_DESCRIBE' : 'DEFAULT_CONFIG';
      const bad = add(e.name, e.value, src, configsSource, e.line);
      if (bad !== null) return bad;
    }
  }
  for (const c of topic.configs) {
    const fromConfigs = section?.entries.get(c.name);
    if (fromConfigs !== undefined) {
      if (fromConfigs.value !== null && fromConfigs.value !== c.value) {
        return refusal(topicsSource, topic.line, `${topic.name}'s ${c.name}=${c.value}, but ${fromConfigs.value} in ${configsSource} line ${fromConfigs.line}: the two outputs are of different moments; take them again together`);
      }
      continue;
    }
    if (section !== undefined && section.scope === 'all' && c.value !== 'null') {
      return refusal(topicsSource, topic.line, `${topic.name}'s ${c.name}=${c.value} is not in its "All configs" of ${configsSource} (line ${section.line}): the two outputs are of different clusters or moments`);
    }
    if (c.value === 'null') continue;
    const bad = add(c.name, c.value, 'TOPIC_DESCRIBE', topicsSource, topic.line);
    if (bad !== null) return bad;
  }
  const configs = [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { ok: true, value: { configs, notModelled: [...notModelled].sort() } };
}
