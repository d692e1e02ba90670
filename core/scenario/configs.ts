/**
 * The config maps of a scenario: broker configs (top-level `config`), topic configs
 * (`topics[i].config`), the configs a `setConfig` event changes, the model knobs (`model`)
 * and the prices (`prices`). A key given in the wrong place is named with where it belongs.
 */
import {
  BROKER_CONFIGS,
  CONSUMER_CONFIGS,
  defaultTopicConfig,
  isConsumerConfigKey,
  MODEL_KNOBS,
  TOPIC_CONFIGS,
  isBrokerConfigKey,
  isTopicConfigKey,
  kafkaRangeRefusal,
  topicConfigSpec,
} from '../domain/config.js';
import type { ConfigValue, ConsumerConfig, ModelKnobs, ValueSpec } from '../domain/config.js';
import { mergedTopicConfig, topicConfigRefusal } from '../domain/log-config-validation.js';
import { PRICE_KEYS, WAL_PRICE_LISTS, isPriceKey } from '../domain/prices.js';
import type { PriceOverrides } from '../domain/prices.js';
import { boolC, checkInt, describe, expectMap, hasOwn, keyPath, list, oneOfC, q, stringC } from './checks.js';
import type { Problems, RawMap } from './checks.js';
import { type JitterBrokers, validateJitter } from './jitter.js';
import type { Scenario } from './types.js';

export const BROKER_KEYS = Object.keys(BROKER_CONFIGS);
export const TOPIC_CONFIG_KEYS = Object.keys(TOPIC_CONFIGS);
/** The knobs, and `jitter` (core/domain/jitter.ts), the one key of `model` that is a map. */
const MODEL_KEYS = [...Object.keys(MODEL_KNOBS), 'jitter'];

function isModelKnob(key: string): key is keyof ModelKnobs {
  return hasOwn(MODEL_KNOBS, key);
}

function checkConfigValue(p: Problems, key: string, spec: ValueSpec, v: unknown, path: string): ConfigValue | undefined {
  switch (spec.kind) {
    case 'int': {
      // Outside Kafka's own range: refused with Kafka's reason (ConfigException's text), on one line.
      const refusal = typeof v === 'number' && Number.isSafeInteger(v) ? kafkaRangeRefusal(key, spec, v) : null;
      if (refusal !== null) {
        const hint = spec.belowMinHint !== undefined && spec.min !== undefined && (v as number) < spec.min ? `; ${spec.belowMinHint}` : '';
        const exp = spec.max === undefined ? `an integer >= ${spec.min}` : `an integer from ${spec.min} to ${spec.max}`;
        p.add(path, `expected ${exp}, got ${describe(v)}: Kafka refuses it ("${refusal}"; ${spec.kafkaRange})${hint}`);
        return undefined;
      }
      return checkInt(p, v, path, { min: spec.min, max: spec.max });
    }
    case 'boolean':
      return boolC.check(p, v, path);
    case 'string':
      if (spec.oneOf) return oneOfC(spec.oneOf).check(p, v, path);
      if (spec.validate) {
        const value = stringC().check(p, v, path);
        if (value === undefined) return undefined;
        const problem = spec.validate(value);
        if (problem === null) return value;
        p.add(path, problem);
        return undefined;
      }
      return stringC().check(p, v, path);
  }
}

export type ConfigScope =
  /** Top-level `config:`: broker configs only. */
  | 'broker'
  /** `topics[i].config`: topic configs only. */
  | 'topic'
  /** `setConfig` without `topic`: either. */
  | 'any'
  /** `setConfig` with `topic`: topic configs only. */
  | 'oneTopic';

/**
 * Validates the entries of a config map (all keys but `skip`). Returns the given values
 * in a fresh object, or undefined after a problem.
 */
export function validateConfigEntries(
  p: Problems,
  obj: RawMap,
  base: string,
  scope: ConfigScope,
  skip: readonly string[] = [],
): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = {};
  for (const key of Object.keys(obj)) {
    if (skip.includes(key)) continue;
    const path = keyPath(base, key);
    const broker = isBrokerConfigKey(key);
    const topic = isTopicConfigKey(key);
    let spec: ValueSpec | undefined;
    if (broker && (scope === 'broker' || scope === 'any')) spec = BROKER_CONFIGS[key as keyof typeof BROKER_CONFIGS];
    else if (topic && scope !== 'broker') spec = topicConfigSpec(key);

    if (spec) {
      const value = checkConfigValue(p, key, spec, obj[key], path);
      if (value !== undefined) out[key] = value;
      continue;
    }
    if (topic && scope === 'broker') {
      p.add(path, `${q(key)} is a topic config; put it under topics[i].config of the topic it applies to (the top-level config holds broker configs: ${list(BROKER_KEYS)})`);
    } else if (broker && scope === 'topic') {
      p.add(path, `${q(key)} is a broker config (cluster-wide); put it under the top-level config (topic configs are: ${list(TOPIC_CONFIG_KEYS)})`);
    } else if (broker && scope === 'oneTopic') {
      p.add(path, `${q(key)} is a broker config and cannot be set for one topic; remove 'topic' to set it cluster-wide, or use a separate setConfig event`);
    } else if (isModelKnob(key) || key === 'jitter') {
      p.add(path, scope === 'broker' || scope === 'topic'
        ? `${q(key)} is a model knob, not a Kafka config; put it under model`
        : `${q(key)} is a model knob and cannot be changed during a run; set it under model`);
    } else {
      const expected = scope === 'broker' ? BROKER_KEYS : scope === 'any' ? [...BROKER_KEYS, ...TOPIC_CONFIG_KEYS] : TOPIC_CONFIG_KEYS;
      const noun = scope === 'broker' ? 'broker config' : scope === 'any' ? 'config' : 'topic config';
      p.add(path, `unknown ${noun} ${q(key)}; expected one of ${list(expected)}`);
    }
  }
  return out;
}

/**
 * A topic created with `config` (its values each valid): Kafka's controller runs LogConfig's
 * checks between configs at CreateTopics (ReplicationControlManager.createTopics, through
 * ConfigurationControlManager.incrementalAlterConfig of the new topic, with no existing
 * configs; core/domain/log-config-validation.ts). A refusal is bad input, in Kafka's words.
 */
export function checkTopicCreation(p: Problems, config: Record<string, ConfigValue>, path: string, systemEnabled: boolean): void {
  const refusal = topicConfigRefusal(mergedTopicConfig(defaultTopicConfig(), config), false, systemEnabled);
  if (refusal === null) return;
  p.add(path, `Kafka refuses to create the topic with these configs: ${refusal.error} "${refusal.message}" (LogConfig.${refusal.check}, Kafka 4.3)`);
}

export const CONSUMER_CONFIG_KEYS = Object.keys(CONSUMER_CONFIGS);

/**
 * A `consume` action's `config`: consumer configs (Kafka's names), each an integer of at
 * least Kafka's minimum, and `client.rack` a string. A broker or topic config named here is told where it belongs.
 */
export function validateConsumerConfig(p: Problems, v: unknown, path: string): Partial<ConsumerConfig> {
  const out: Partial<ConsumerConfig> = {};
  const obj = expectMap(p, v, path, `a map of consumer configs (${list(CONSUMER_CONFIG_KEYS)})`);
  if (!obj) return out;
  for (const key of Object.keys(obj)) {
    const kp = keyPath(path, key);
    if (key === 'client.rack') {
      // Any string, as Kafka's ConsumerConfig takes it; a rack no broker has reads from the leader.
      const value = stringC({ maxChars: 256 }).check(p, obj[key], kp);
      if (value !== undefined) out[key] = value;
    } else if (isConsumerConfigKey(key)) {
      // The others are Kafka INT configs, each with its atLeast.
      const spec: ValueSpec = CONSUMER_CONFIGS[key];
      const value = checkInt(p, obj[key], kp, { min: spec.min });
      if (value !== undefined) (out as Record<string, number>)[key] = value;
    } else if (isBrokerConfigKey(key)) {
      p.add(kp, `${q(key)} is a broker config, not a consumer config; put it under the top-level config (consumer configs are: ${list(CONSUMER_CONFIG_KEYS)})`);
    } else if (isTopicConfigKey(key)) {
      p.add(kp, `${q(key)} is a topic config, not a consumer config; put it under topics[i].config (consumer configs are: ${list(CONSUMER_CONFIG_KEYS)})`);
    } else {
      p.add(kp, `unknown consumer config ${q(key)}; expected one of ${list(CONSUMER_CONFIG_KEYS)}`);
    }
  }
  return out;
}

/**
 * `model`: the knobs given, and `jitter` when given. `brokers`: the broker ids a jitter link
 * may name (undefined when `brokers` is itself bad).
 */
export function validateModel(p: Problems, v: unknown, path: string, zones: readonly string[], brokers?: JitterBrokers): Scenario['model'] {
  const out: Scenario['model'] = {};
  const obj = expectMap(p, v, path, `a map of model knobs (${list(MODEL_KEYS)})`);
  if (!obj) return out;
  for (const key of Object.keys(obj)) {
    const kp = keyPath(path, key);
    if (key === 'jitter') {
      // null, as for any optional key, counts as not given.
      if (obj[key] === null) continue;
      const jitter = validateJitter(p, obj[key], kp, brokers);
      if (jitter !== undefined) out.jitter = jitter;
    } else if (isModelKnob(key)) {
      const spec = MODEL_KNOBS[key];
      if (spec.kind === 'zone') {
        const value = obj[key];
        if (typeof value === 'string' && (value === '' || zones.includes(value))) (out as Record<string, unknown>)[key] = value;
        else p.add(kp, `expected '' (the partition leader's zone) or one of the zones ${list(zones)}, got ${describe(value)}`);
        continue;
      }
      const value = checkInt(p, obj[key], kp, spec.max === undefined ? { min: spec.min } : { min: spec.min, max: spec.max, note: `(${spec.maxWhy ?? 'at most'})` });
      if (value !== undefined) (out as Record<string, unknown>)[key] = value;
    } else if (isBrokerConfigKey(key)) {
      p.add(kp, `${q(key)} is a broker config, not a model knob; put it under the top-level config`);
    } else if (isTopicConfigKey(key)) {
      p.add(kp, `${q(key)} is a topic config, not a model knob; put it under topics[i].config`);
    } else {
      p.add(kp, `unknown model knob ${q(key)}; expected one of ${list(MODEL_KEYS)}`);
    }
  }
  return out;
}

/** Prices are non-negative numbers of USD; the free bytes per request are integers. */
export function validatePrices(p: Problems, v: unknown, path: string): PriceOverrides {
  const out: Record<string, unknown> = {};
  const obj = expectMap(p, v, path, `a map of prices (${list(PRICE_KEYS)})`);
  if (!obj) return out;
  for (const key of Object.keys(obj)) {
    const kp = keyPath(path, key);
    const value = obj[key];
    if (!isPriceKey(key)) {
      p.add(kp, `unknown price ${q(key)}; expected one of ${list(PRICE_KEYS)}`);
    } else if (key === 'walPriceList') {
      const priceList = oneOfC(WAL_PRICE_LISTS).check(p, value, kp);
      if (priceList !== undefined) out[key] = priceList;
    } else if (key.endsWith('Bytes')) {
      const bytes = checkInt(p, value, kp, { min: 0, note: '(bytes)' });
      if (bytes !== undefined) out[key] = bytes;
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      p.add(kp, `expected a number >= 0 (USD), got ${describe(value)}`);
    } else {
      out[key] = value === 0 ? 0 : value; // normalise -0
    }
  }
  return out as PriceOverrides;
}
