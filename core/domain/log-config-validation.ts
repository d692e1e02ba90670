/**
 * Kafka's validation of a topic's configs, as its controller runs it at topic creation and
 * on every AlterConfigs / IncrementalAlterConfigs (Kafka 4.3):
 * ConfigurationControlManager.validateAlterConfig merges the topic's existing configs with
 * the altered ones and hands them, with the topic's existing configs, to
 * ControllerConfigurationValidator.validate, which calls LogConfig.validate(existing, props,
 * brokerLogConfigs, remoteLogStorageSystemEnabled). That parses the broker's log configs
 * overlaid with the topic's (the model's broker defaults are Kafka's, so a topic config's
 * default stands for the broker's) and runs LogConfig.validateTopicLogConfigValues:
 * validateValues; then, for a tiered topic, validateRemoteStorageOnlyIfSystemEnabled,
 * validateRemoteStorageRequiresDeleteCleanupPolicy, validateRemoteStorageRetentionSize,
 * validateRemoteStorageRetentionTime and validateRetentionConfigsWhenRemoteCopyDisabled; for
 * one that is not, validateTurningOffRemoteStorageWithDelete. The first that throws decides,
 * and the controller answers INVALID_CONFIG with the exception's message (a ConfigException
 * directly, an InvalidConfigurationException through ApiError.fromThrowable); nothing of
 * the change is applied.
 *
 * Names and types (LogConfig.validateNames, ConfigDef.parse) are checked by the scenario
 * parser, key by key (core/scenario/configs.ts); this module holds the rules between configs.
 */
import { type ConfigValue, type TopicConfig, isTopicConfigKey } from './config.js';

/** The LogConfig method whose rule refused the configs. */
export type LogConfigCheck =
  | 'validateValues'
  | 'validateRemoteStorageOnlyIfSystemEnabled'
  | 'validateRemoteStorageRequiresDeleteCleanupPolicy'
  | 'validateRemoteStorageRetentionSize'
  | 'validateRemoteStorageRetentionTime'
  | 'validateRetentionConfigsWhenRemoteCopyDisabled'
  | 'validateTurningOffRemoteStorageWithDelete';

/** Kafka's answer to configs it refuses: the error and the exception's message. */
export interface ConfigRefusal {
  readonly error: 'INVALID_CONFIG';
  readonly message: string;
  readonly check: LogConfigCheck;
}

/** ConfigException(name, value, message)'s text. */
function invalidValue(name: string, value: number, message: string): string {
  return `Invalid value ${value} for configuration ${name}: ${message}`;
}

function refuse(check: LogConfigCheck, message: string): ConfigRefusal {
  return { error: 'INVALID_CONFIG', message, check };
}

/** LogConfig.validateValues: the compaction lags. */
function validateValues(c: TopicConfig): ConfigRefusal | null {
  const min = c['min.compaction.lag.ms'];
  const max = c['max.compaction.lag.ms'];
  if (min > max) return refuse('validateValues', `conflict topic config setting min.compaction.lag.ms (${min}) > max.compaction.lag.ms (${max})`);
  return null;
}

/**
 * LogConfig.validateRemoteStorageRetentionSize and ...Time: with a total retention set
 * (retention.bytes > -1; retention.ms other than -1), a local retention other than -2 (take
 * the total's) may be neither -1 (forever) nor above the total.
 */
function validateLocalRetention(c: TopicConfig, unit: 'bytes' | 'ms'): ConfigRefusal | null {
  const check = unit === 'bytes' ? 'validateRemoteStorageRetentionSize' : 'validateRemoteStorageRetentionTime';
  const total = c[`retention.${unit}`];
  const local = c[`local.retention.${unit}`];
  const totalSet = unit === 'bytes' ? total > -1 : total !== -1;
  if (!totalSet || local === -2) return null;
  const name = `local.retention.${unit}`;
  if (local === -1) return refuse(check, invalidValue(name, local, `Value must not be -1 as retention.${unit} value is set as ${total}.`));
  if (local > total) return refuse(check, invalidValue(name, local, `Value must not be more than retention.${unit} property value: ${total}`));
  return null;
}

/** LogConfig.validateRetentionConfigsWhenRemoteCopyDisabled (KIP-950). */
function validateCopyDisabled(c: TopicConfig): ConfigRefusal | null {
  if (!c['remote.log.copy.disable']) return null;
  for (const unit of ['bytes', 'ms'] as const) {
    const local = c[`local.retention.${unit}`];
    if (local !== -2 && local !== c[`retention.${unit}`]) {
      return refuse(
        'validateRetentionConfigsWhenRemoteCopyDisabled',
        `When \`remote.log.copy.disable\` is set to true, the \`local.retention.${unit}\` and \`retention.${unit}\` must be set to the identical value because there will be no more logs copied to the remote storage.`,
      );
    }
  }
  return null;
}

/**
 * Kafka's refusal of a topic's configs, or null when it accepts them. `next`: every config
 * of the topic after the change (defaults filled in); `wasTiered`: remote.storage.enable
 * before it (false at creation); `systemEnabled`: the brokers' remote.log.storage.system.enable.
 */
export function topicConfigRefusal(next: TopicConfig, wasTiered: boolean, systemEnabled: boolean): ConfigRefusal | null {
  const values = validateValues(next);
  if (values) return values;
  if (!next['remote.storage.enable']) {
    if (wasTiered && !next['remote.log.delete.on.disable']) {
      return refuse(
        'validateTurningOffRemoteStorageWithDelete',
        'It is invalid to disable remote storage without deleting remote data. If you want to keep the remote data and turn to read only, please set `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to disable remote storage and delete all remote data, please set `remote.storage.enable=false,remote.log.delete.on.disable=true`.',
      );
    }
    return null;
  }
  if (!systemEnabled) {
    return refuse('validateRemoteStorageOnlyIfSystemEnabled', 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.');
  }
  if (next['cleanup.policy'] !== 'delete') {
    return refuse('validateRemoteStorageRequiresDeleteCleanupPolicy', 'Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.');
  }
  return validateLocalRetention(next, 'bytes') ?? validateLocalRetention(next, 'ms') ?? validateCopyDisabled(next);
}

/** The topic's configs with `altered` laid over them (ConfigurationControlManager's allConfigs). */
export function mergedTopicConfig(current: TopicConfig, altered: Readonly<Record<string, ConfigValue>>): TopicConfig {
  const next = { ...current } as Record<string, ConfigValue>;
  for (const [k, v] of Object.entries(altered)) if (isTopicConfigKey(k)) next[k] = v;
  return next as TopicConfig;
}

/**
 * An alteration of a topic's configs as Kafka's controller answers it: the configs after it,
 * or Kafka's refusal (the configs then stay as they were). Keys of `altered` that are not
 * topic configs (a broker config in the same change) are left out.
 */
export function alterTopicConfigs(
  current: TopicConfig,
  altered: Readonly<Record<string, ConfigValue>>,
  systemEnabled: boolean,
): { ok: true; next: TopicConfig } | { ok: false; refusal: ConfigRefusal } {
  const next = mergedTopicConfig(current, altered);
  const refusal = topicConfigRefusal(next, current['remote.storage.enable'], systemEnabled);
  return refusal === null ? { ok: true, next } : { ok: false, refusal };
}
