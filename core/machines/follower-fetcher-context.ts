/**
 * The follower fetcher's data: the facts the kernel passes with each event, the machine's
 * context (Kafka's PartitionFetchState and what a bootstrap learns from the leader), its
 * events, and KIP-1023's start offset as a function of what the leader answered.
 */
import type { KafkaError, ListOffsetsTimestamp } from '../domain/protocol.js';
import type { EpochEntry } from '../domain/leader-epoch-cache.js';
import type { ProducerEntry } from '../domain/producer-state.js';
import type { RecordBatch } from '../domain/partition-log.js';

/** What the kernel tells the fetcher about its own replica and configs with each event. */
export interface ReplicaFacts {
  logEndOffset: number;
  /** follower.fetch.last.tiered.offset.enable */
  lastTieredOffsetEnabled: boolean;
  /** remote.storage.enable of the topic (and the broker's remote storage system). */
  tiered: boolean;
  compacted: boolean;
  /** The replica's leader epoch cache (read only). */
  leaderEpochs: readonly EpochEntry[];
}

export interface FollowerFetcherContext {
  broker: number;
  topic: string;
  partition: number;
  leader: number;
  leaderEpoch: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
  /** Id of the request or timer the machine waits for; anything else is stale. */
  awaiting: number;
  nextId: number;
  /** Which bootstrap path is running: classic (KIP-405) or KIP-1023. */
  path: 'classic' | 'kip1023' | null;
  leaderLogStartOffset: number;
  leaderLogEndOffset: number;
  leaderLocalLogStartOffset: number;
  leaderLocalLogStartEpoch: number;
  earliestPendingUploadOffset: number;
  earliestPendingUploadEpoch: number;
  /** Remote aux state target: build up to this offset (exclusive) of this epoch. */
  auxTargetOffset: number;
  auxTargetEpoch: number;
  auxPreviousEpoch: number;
  remoteSegmentEndOffset: number;
  remoteKeys: { leaderEpochCheckpoint: string; producerSnapshot: string } | null;
  retries: number;
  lastError: string | null;
}

export type FollowerFetcherEvent =
  | { type: 'fetcher.started'; leader: number; leaderEpoch: number; replica: ReplicaFacts; lastFetchedEpoch: number }
  | { type: 'fetcher.stopped' }
  | {
      type: 'fetch.responded';
      requestId: number;
      error: KafkaError | null;
      batches: RecordBatch[];
      highWatermark: number;
      logStartOffset: number;
      divergingEpoch: { epoch: number; endOffset: number } | null;
      replica: ReplicaFacts;
      /** KIP-1176: the leader answered without records because the WAL carries them. */
      wal?: boolean;
    }
  | {
      type: 'listOffsets.responded';
      requestId: number;
      timestamp: ListOffsetsTimestamp;
      error: KafkaError | null;
      offset: number;
      leaderEpoch: number;
      replica: ReplicaFacts;
    }
  | { type: 'offsetsForLeaderEpoch.responded'; requestId: number; error: KafkaError | null; leaderEpoch: number; endOffset: number }
  | {
      type: 'remoteSegment.lookedUp';
      requestId: number;
      found: { segmentId: string; baseOffset: number; endOffset: number; keys: { leaderEpochCheckpoint: string; producerSnapshot: string } } | null;
      reason: string | null;
    }
  | { type: 'objectStore.getCompleted'; requestId: number; ok: boolean; error: string | null; leaderEpochs?: EpochEntry[]; producers?: ProducerEntry[] }
  | { type: 'backoff.expired'; timerId: number }
  /** KIP-1176: the WAL replica appended a chunk; the log now ends at `logEndOffset`. */
  | { type: 'wal.appended'; logEndOffset: number; lastEpoch: number };

export function initialContext(input: { broker: number; topic: string; partition: number }): FollowerFetcherContext {
  return {
    broker: input.broker, topic: input.topic, partition: input.partition,
    leader: -1, leaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1,
    awaiting: -1, nextId: 1, path: null,
    leaderLogStartOffset: -1, leaderLogEndOffset: -1, leaderLocalLogStartOffset: -1, leaderLocalLogStartEpoch: -1,
    earliestPendingUploadOffset: -1, earliestPendingUploadEpoch: -1,
    auxTargetOffset: -1, auxTargetEpoch: -1, auxPreviousEpoch: -1, remoteSegmentEndOffset: -1, remoteKeys: null,
    retries: 0, lastError: null,
  };
}

export type Ev<T extends FollowerFetcherEvent['type']> = Extract<FollowerFetcherEvent, { type: T }>;

/** KIP-1023's start: max(EPUO, LLSO), or LSO when EPUO is -1 and nothing is tiered-only. */
export function kip1023Start(c: FollowerFetcherContext): number {
  if (c.earliestPendingUploadOffset === -1) return c.leaderLogStartOffset;
  return Math.max(c.earliestPendingUploadOffset, c.leaderLocalLogStartOffset);
}

/** The leader epoch of the KIP-1023 start, from the ListOffsets answer it came from. */
export function kip1023StartEpoch(c: FollowerFetcherContext): number {
  const start = kip1023Start(c);
  if (start === c.earliestPendingUploadOffset && c.earliestPendingUploadEpoch >= 0) return c.earliestPendingUploadEpoch;
  return c.leaderLocalLogStartEpoch;
}
