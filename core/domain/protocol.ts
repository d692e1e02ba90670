/**
 * Kafka's wire vocabulary used by the model: API names, error names and codes, and the
 * special ListOffsets timestamps. Names are verbatim so traces read like Kafka's logs.
 */

export const ERROR_CODES = {
  OFFSET_OUT_OF_RANGE: 1,
  NOT_LEADER_OR_FOLLOWER: 6,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  NETWORK_EXCEPTION: 13,
  NOT_ENOUGH_REPLICAS: 19,
  OFFSET_MOVED_TO_TIERED_STORAGE: 109,
  /** A config Kafka's controller refuses (ConfigException or InvalidConfigurationException). */
  INVALID_CONFIG: 40,
  /** Errors.forException of an exception Kafka has no code for (a RejectedExecutionException). */
  UNKNOWN_SERVER_ERROR: -1,
} as const;

export type KafkaError = keyof typeof ERROR_CODES;

export type ApiName = 'Fetch' | 'ListOffsets' | 'OffsetsForLeaderEpoch';

/** ListOffsets special timestamps. */
export const LIST_OFFSETS = {
  LATEST: -1,
  EARLIEST: -2,
  EARLIEST_LOCAL: -4,
  LATEST_TIERED: -5,
  EARLIEST_PENDING_UPLOAD: -6,
} as const;

export type ListOffsetsTimestamp = (typeof LIST_OFFSETS)[keyof typeof LIST_OFFSETS];

export const LIST_OFFSETS_NAMES: Record<ListOffsetsTimestamp, string> = {
  [-1]: 'LATEST',
  [-2]: 'EARLIEST',
  [-4]: 'EARLIEST_LOCAL',
  [-5]: 'LATEST_TIERED',
  [-6]: 'EARLIEST_PENDING_UPLOAD',
};

/** What a ListOffsets timestamp means, in the words of the offsets table. */
export const LIST_OFFSETS_MEANING: Record<ListOffsetsTimestamp, string> = {
  [-1]: 'Log-End-Offset',
  [-2]: 'Log-Start-Offset',
  [-4]: 'Local-Log-Start-Offset',
  [-5]: 'highest offset in remote storage',
  [-6]: 'Earliest-Pending-Upload-Offset',
};

export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_OFFSET = -1;
