/**
 * Every rule the model names for a step: a trace entry's `rule`, the key of its narration
 * (core/narrate/narrate.ts). One union, so that a rule the narration does not know, or a
 * narration for a rule nothing produces, is a compile error and not a silent fallback to
 * the bare name. Grouped by where the rule is decided.
 */

/** The leader's answer to a Fetch at an offset (leader-rules.ts). */
export type FetchRule = 'belowLogStartOffset' | 'tieredOnlyOffset' | 'belowLocalLogStartOffset' | 'aboveLogEndOffset' | 'localRecords';

/** How the leader decides KIP-1023's Earliest-Pending-Upload-Offset (ListOffsets -6). */
export type EpuoRule = 'notTiered' | 'unknownNothingTieredOnly' | 'unknownTieredOnlyExists' | 'afterHighestTiered';

/** The leader's answer to ListOffsets with a special timestamp (leader-rules.ts). */
export type ListOffsetsRule = 'latest' | 'earliest' | 'earliestLocal' | 'latestTiered' | `earliestPendingUpload.${EpuoRule}`;

/** Why the remote log manager deletes a remote segment (retention.ts). */
export type RemoteExpiryRule = 'belowLogStartOffset' | 'retentionMs' | 'retentionBytes' | 'retryDelete';

/** The leader partition machine: Fetch, produce and ISR decisions besides the offset rules. */
export type LeaderRule =
  | FetchRule
  | ListOffsetsRule
  | 'leaderEpochCheck'
  | 'divergingEpoch'
  | 'unknownLastFetchedEpoch'
  | 'walEmptyRecords'
  | 'minInsyncReplicas'
  | 'followerLagging'
  | 'followerCaughtUp';

/** The follower fetcher machine: the classic and KIP-1023 paths and the aux state. */
export type FetcherRule =
  | 'divergingEpoch'
  | 'fencedLeaderEpoch'
  | 'kip1023Eligible'
  | 'classicOutOfRange'
  | 'classicOutOfRangeNotEmpty'
  | 'classicTieredOffset'
  | 'classicTieredOffsetNotEmpty'
  | 'leaderEndBelowFollowerEnd'
  | 'leaderStartAboveFollowerEnd'
  | 'resumeAtFollowerEnd'
  | 'kip1023PendingUploadUnknown'
  | 'kip1023StartAtLogStart'
  | 'kip1023Start'
  | 'auxStateClassic'
  | 'auxStateKip1023'
  | 'remoteSegmentNotFound'
  | 'auxStateContinuesAcrossLeaderChange'
  | 'auxStateBuilt';

/** The remote log manager's machines (copy or follower task, expiration task) and the broker's log retention task. */
export type RlmRule = RemoteExpiryRule | 'rlmMetadataLoading' | 'rollForLocalRetention' | 'rlmRunDone' | 'logRetentionRunDone';

/** The WAL replica machine (KIP-1176). */
export type WalReplicaRule = 'walChunkStaleEpoch' | 'walTailSyncFailed';

/** Decided by the kernel itself: effects, faults, elections, consumers and the WAL combiner's objects. */
export type KernelRule =
  | 'initialLeader'
  | 'electLeader'
  | 'leaderCrashed'
  | 'lastInSyncReplicaReturned'
  | 'electionRefused'
  | 'noEligibleLeader'
  | 'noLeader'
  | 'notLeader'
  | 'notReplica'
  | 'brokerDown'
  | 'brokerUnreachable'
  | 'brokerCrashed'
  | 'brokerRestarted'
  | 'crashWhileDown'
  | 'restartWhileUp'
  | 'brokerRegistered'
  | 'networkPartition'
  | 'networkHealed'
  | 'configChanged'
  | 'configRefused'
  | 'replicaAdded'
  | 'transferStarted'
  | 'storeThrottled'
  | 'storeRecovered'
  | 'storeOutage'
  | 'segmentFull'
  | 'appendAsLeader'
  | 'endOffsetForEpoch'
  | 'backoff'
  | 'auxStateLeaderEpochs'
  | 'auxStateProducerSnapshot'
  | 'remoteSegmentFound'
  | 'remoteMetadataLoading'
  | 'rlmRefreshHighestOffset'
  | 'logStartOffsetOnBecomingLeader'
  | 'rollForLocalRetention'
  | 'copyCandidate'
  | 'copyFinished'
  | 'copyFailed'
  | 'localRetention'
  | 'logRetention'
  | 'remoteRetention'
  | 'remoteDeletedOnDisable'
  | 'consumerLocalRead'
  | 'consumerRemoteRead'
  | 'consumerReadLocal'
  | 'consumerReadRemote'
  | 'consumerOutOfRange'
  | 'preferredReadReplica'
  | 'preferredReadReplicaCleared'
  | 'preferredReadReplicaExpired'
  | 'remoteSegmentMissing'
  | 'remoteReadFailed'
  | 'remoteFetchExpired'
  | 'walCombinerFlush'
  | 'walPutFailed'
  | 'walMetadataPublished'
  | 'walMetadataRetention'
  | 'walChunkAppended'
  | 'walReadBackoff'
  | 'walTailSync'
  | 'walTailSynced'
  | 'walOrphan'
  | 'walObjectTiered'
  | 'walObjectPastLocalRetention'
  | QuotaRule;

/** KIP-73 replication throttles, KIP-956 remote quotas and the remote log reader pool (core/sim/world/quotas.ts). */
export type QuotaRule =
  | 'leaderThrottled'
  | 'followerThrottled'
  | 'remoteCopyThrottled'
  | 'remoteFetchThrottled'
  | 'remoteReadQueued'
  | 'remoteReadRejected';

/** Every rule the model produces. */
export type Rule = LeaderRule | FetcherRule | RlmRule | WalReplicaRule | KernelRule;
