/**
 * Quotas (docs/protocol.md §3.1, §5.1): what Kafka 4.3 holds back by byte rate, and the
 * remote log reader pool.
 *
 * - KIP-73 replication throttles. Each broker has a leader and a follower
 *   ReplicationQuotaManager, a SimpleRate over `replication.quota.window.num` samples of
 *   `replication.quota.window.size.seconds` (core/domain/rate.ts), bounded by
 *   `leader.replication.throttled.rate` / `follower.replication.throttled.rate`. A partition
 *   is throttled on a broker when the topic's `leader.replication.throttled.replicas` /
 *   `follower.replication.throttled.replicas` is '*' or names `partition:thatBroker`
 *   (ConfigHandler.parseThrottledPartitions). Only an out-of-sync replica is held back:
 *   ReplicaManager.shouldLeaderThrottle (the follower is not in the leader's ISR) and
 *   ReplicaFetcherThread's shouldFollowerThrottle (the fetcher's own lag is unknown or
 *   above 0). Bytes of throttled partitions are recorded whether in sync or not
 *   (KafkaApis.sizeOfThrottledPartitions on the leader, ReplicaFetcherThread.processPartitionData
 *   on the follower), after the answer, ignoring the quota.
 * - KIP-956: RLMQuotaManager for copies (`remote.log.manager.copy.max.bytes.per.second`) and
 *   consumer reads from remote storage (`remote.log.manager.fetch.max.bytes.per.second`).
 * - RemoteLogManager's reader pool (RemoteStorageThreadPool): `remote.log.reader.threads`
 *   reads at once, `remote.log.reader.max.pending.tasks` queued, the rest rejected.
 *
 * The state is plain data in `KernelState.quotas`; this module never imports the network,
 * the clients or tiering (they call it), so what a wait resumes is done by effects.ts.
 */
import { isQuotaExceeded, measure, newRateStat, type RateConfig, type RateStat, ratePerSecond, recordBytes, throttleTimeMs } from '../../domain/rate.js';
import type { RecordBatch } from '../../domain/partition-log.js';
import { logEndOffset } from '../../domain/partition-log.js';
import type { QuotaRule, Rule } from '../../domain/rules.js';
import type { Sim } from '../state/context.js';
import { remove } from '../state/event-queue.js';
import { replica } from '../state/facts.js';
import type { KernelState, QuotaWait, RequestMessage, RequestOf } from '../state/state.js';

/** RemoteLogManager.quotaTimeout(): a copy task waits at most 1 s before it checks the quota again. */
export const COPY_QUOTA_TIMEOUT_MS = 1000;
/** The Kafka consumer's fetch.max.wait.ms default: how long the broker holds a Fetch that has no records. */
export const CONSUMER_FETCH_MAX_WAIT_MS = 500;

type Which = 'leader' | 'follower' | 'copy' | 'fetch';

function config(state: KernelState, which: Which): RateConfig {
  const c = state.brokerConfig;
  switch (which) {
    case 'leader':
    case 'follower':
      return {
        samples: c['replication.quota.window.num'],
        windowMs: c['replication.quota.window.size.seconds'] * 1000,
        bound: which === 'leader' ? c['leader.replication.throttled.rate'] : c['follower.replication.throttled.rate'],
      };
    case 'copy':
      return { samples: c['remote.log.manager.copy.quota.window.num'], windowMs: c['remote.log.manager.copy.quota.window.size.seconds'] * 1000, bound: c['remote.log.manager.copy.max.bytes.per.second'] };
    case 'fetch':
      return { samples: c['remote.log.manager.fetch.quota.window.num'], windowMs: c['remote.log.manager.fetch.quota.window.size.seconds'] * 1000, bound: c['remote.log.manager.fetch.max.bytes.per.second'] };
  }
}

function stat(state: KernelState, broker: number, which: Which): RateStat {
  return (state.quotas.rates[`${broker}|${which}`] ??= newRateStat());
}

function record(s: Sim, broker: number, which: Which, bytes: number): void {
  recordBytes(stat(s.state, broker, which), config(s.state, which), bytes, s.state.nowMs);
}

/** The rate as Kafka's byte-rate gauge gives it, for a trace entry. */
function rateNow(s: Sim, broker: number, which: Which): { rateBytesPerSec: number; windowMs: number; quotaBytesPerSec: number } {
  const cfg = config(s.state, which);
  const m = measure(stat(s.state, broker, which), cfg, s.state.nowMs);
  return { rateBytesPerSec: ratePerSecond(m), windowMs: m.windowMs, quotaBytesPerSec: cfg.bound };
}

function emit(s: Sim, key: string, broker: number, rule: QuotaRule, fields: Record<string, unknown>): void {
  const part = s.state.partitions[key];
  s.emit({ atMs: s.state.nowMs, type: 'quota', action: rule, broker, topic: part.topic, partition: part.partition, ...fields, rule: rule as Rule });
}

/**
 * ReplicationQuotaManager.isThrottled on `broker`: the topic's throttled-replicas config is
 * '*' or lists `partition:broker` (ConfigHandler.parseThrottledPartitions keeps the entries
 * of this broker).
 */
export function isThrottledReplica(state: KernelState, key: string, broker: number, side: 'leader' | 'follower'): boolean {
  const part = state.partitions[key];
  const value = state.topicConfigs[part.topic][side === 'leader' ? 'leader.replication.throttled.replicas' : 'follower.replication.throttled.replicas'].trim();
  if (value === '') return false;
  if (value === '*') return true;
  for (const entry of value.split(',')) {
    const [p, b] = entry.trim().split(':');
    if (p !== undefined && b !== undefined && Number(p) === part.partition && Number(b) === broker) return true;
  }
  return false;
}

/**
 * ReplicaManager.shouldLeaderThrottle: the follower is not in the leader's ISR, the
 * partition is throttled on the leader, and the leader quota is exceeded (checked in that
 * order, as Kafka's `&&` does; measuring purges old samples).
 */
export function shouldLeaderThrottle(s: Sim, key: string, leader: number, follower: number): boolean {
  const state = s.state;
  if (state.partitions[key].isr.includes(follower)) return false;
  if (!isThrottledReplica(state, key, leader, 'leader')) return false;
  return isQuotaExceeded(stat(state, leader, 'leader'), config(state, 'leader'), state.nowMs);
}

/** A follower's Fetch the leader is answering: held back, or not (ReplicaManager.readFromLog's checkFetchDataInfo). */
export function leaderThrottle(s: Sim, key: string, leader: number, msg: RequestMessage, batches: RecordBatch[], rule: string): { batches: RecordBatch[]; rule: string } {
  if (typeof msg.source !== 'number' || !isThrottledReplica(s.state, key, leader, 'leader')) return { batches, rule };
  let out = { batches, rule };
  // Kafka asks on every read of a follower (checkFetchDataInfo), records or not.
  if (shouldLeaderThrottle(s, key, leader, msg.source) && batches.length > 0) {
    let held = 0;
    for (const b of batches) held += b.bytes;
    emit(s, key, leader, 'leaderThrottled', { follower: msg.source, heldBytes: held, ...rateNow(s, leader, 'leader') });
    out = { batches: [], rule: 'leaderThrottled' };
  }
  // KafkaApis.handleFetchRequest: quotas.leader.record(sizeOfThrottledPartitions(...)), in
  // sync or not (the model counts the records' bytes, not the partition's response header).
  let bytes = 0;
  for (const b of out.batches) bytes += b.bytes;
  record(s, leader, 'leader', bytes);
  return out;
}

/**
 * DelayedFetch.tryComplete: a held Fetch of a throttled, out-of-sync follower is not
 * completed early by new data; it waits for its expiry.
 */
export function holdsThrottledFetch(s: Sim, msg: RequestMessage): boolean {
  return typeof msg.source === 'number' && shouldLeaderThrottle(s, msg.key, msg.target as number, msg.source);
}

/** PartitionFetchState.isReplicaInSync: the fetcher's lag is known and 0. */
function fetcherInSync(s: Sim, broker: number, key: string): boolean {
  const lag = s.state.quotas.lag[`${broker}|${key}`];
  return lag !== undefined && lag.leaderEpoch === fetcherEpoch(s, broker, key) && lag.lag <= 0;
}

/**
 * The leader epoch a fetch state belongs to: the partition's (a new leader or epoch gives the
 * fetcher a new PartitionFetchState, its lag unknown; AbstractFetcherThread.addPartitions).
 */
function fetcherEpoch(s: Sim, _broker: number, key: string): number {
  return s.state.partitions[key].leaderEpoch;
}

/**
 * ReplicaFetcherThread (RemoteLeaderEndPoint.buildFetch, shouldFollowerThrottle): an
 * out-of-sync fetcher of a throttled partition is left out of the Fetch while the follower
 * quota is exceeded. With nothing else to fetch, the thread waits replica.fetch.backoff.ms
 * (AbstractFetcherThread.maybeFetch) and builds the request again. True when the Fetch waits.
 */
export function followerThrottleWaits(s: Sim, w: Extract<QuotaWait, { wait: 'followerFetch' }>): boolean {
  const state = s.state;
  // Kafka's order is in sync, throttled, exceeded; only the last has a side effect (measuring).
  if (!isThrottledReplica(state, w.key, w.broker, 'follower') || fetcherInSync(s, w.broker, w.key)) return false;
  if (!isQuotaExceeded(stat(state, w.broker, 'follower'), config(state, 'follower'), state.nowMs)) return false;
  const delayMs = state.brokerConfig['replica.fetch.backoff.ms'];
  emit(s, w.key, w.broker, 'followerThrottled', { fetchOffset: w.fetchOffset, retryAtMs: state.nowMs + delayMs, ...rateNow(s, w.broker, 'follower') });
  s.schedule(state.nowMs + delayMs, { kind: 'quotaWait', what: w });
  return true;
}

/**
 * A follower appended a Fetch answer (AbstractFetcherThread.processFetchRequest): a
 * throttled partition's bytes are recorded; the lag, max(0, HW - next offset), is updated
 * when records came or it was unknown.
 */
export function followerFetched(s: Sim, broker: number, key: string, bytes: number, highWatermark: number): void {
  if (isThrottledReplica(s.state, key, broker, 'follower')) record(s, broker, 'follower', bytes);
  const epoch = fetcherEpoch(s, broker, key);
  const lags = s.state.quotas.lag;
  // The key is built only when the entry is missing or changes: this runs at every answer a follower takes.
  const k = `${broker}|${key}`;
  const known = lags[k];
  if (bytes === 0 && known !== undefined && known.leaderEpoch === epoch) return;
  const lag = Math.max(0, highWatermark - logEndOffset(replica(s.state, key, broker).log));
  if (known !== undefined && known.leaderEpoch === epoch) known.lag = lag;
  else lags[k] = { leaderEpoch: epoch, lag };
}

/** The fetcher reset its fetch position from the leader's offsets (out of range): lag unknown again. */
export function followerLagReset(s: Sim, broker: number, key: string): void {
  delete s.state.quotas.lag[`${broker}|${key}`];
}

/**
 * RLMCopyTask.copyLogSegmentsToRemote: before a segment's copy, while the copy quota's
 * throttle time is above 0 the task waits (copyQuotaManagerLockCondition.await, at most
 * quotaTimeout, 1 s) and checks again; once within the quota it records the segment's
 * size and copies. True when the copy waits.
 */
export function copyQuotaWaits(s: Sim, w: Extract<QuotaWait, { wait: 'copy' }>, segmentBytes: number): boolean {
  const state = s.state;
  const throttleMs = throttleTimeMs(stat(state, w.broker, 'copy'), config(state, 'copy'), state.nowMs);
  if (throttleMs > 0) {
    emit(s, w.key, w.broker, 'remoteCopyThrottled', { baseOffset: w.baseOffset, endOffset: w.endOffset, throttleMs, retryAtMs: state.nowMs + COPY_QUOTA_TIMEOUT_MS, ...rateNow(s, w.broker, 'copy') });
    s.schedule(state.nowMs + COPY_QUOTA_TIMEOUT_MS, { kind: 'quotaWait', what: w });
    return true;
  }
  record(s, w.broker, 'copy', segmentBytes);
  return false;
}

/**
 * ReplicaManager.handleOffsetOutOfRangeError for a consumer: with the remote fetch quota's
 * throttle time above 0 no remote read is scheduled; the partition's answer has no records
 * and no error, and the Fetch, with nothing to return, waits its max wait in the purgatory.
 * True when the read is skipped (the empty answer follows the wait).
 */
export function remoteFetchThrottled(s: Sim, broker: number, msg: RequestOf<'Fetch'>): boolean {
  const state = s.state;
  const throttleMs = throttleTimeMs(stat(state, broker, 'fetch'), config(state, 'fetch'), state.nowMs);
  if (throttleMs <= 0) return false;
  emit(s, msg.key, broker, 'remoteFetchThrottled', { fetchOffset: msg.body.fetchOffset, throttleMs, answerAtMs: state.nowMs + CONSUMER_FETCH_MAX_WAIT_MS, ...rateNow(s, broker, 'fetch') });
  s.schedule(state.nowMs + CONSUMER_FETCH_MAX_WAIT_MS, { kind: 'quotaWait', what: { wait: 'remoteFetch', broker, msg } });
  return true;
}

/** RemoteLogReader.call: the bytes a remote read returned count toward the fetch quota, after it. */
export function recordRemoteFetch(s: Sim, broker: number, bytes: number): void {
  record(s, broker, 'fetch', bytes);
}

/** The Fetch holds one of the broker's remote reader threads. */
export function holdsRemoteReader(state: KernelState, broker: number, msgId: number): boolean {
  return state.quotas.readers[String(broker)]?.running.includes(msgId) === true;
}

/**
 * RemoteLogManager.asyncRead: the read runs on a free reader thread, or waits in the
 * pool's queue; a full queue rejects it (RejectedExecutionException).
 */
export function acquireRemoteReader(s: Sim, broker: number, msg: RequestOf<'Fetch'>): 'run' | 'queued' | 'rejected' {
  const state = s.state;
  const pool = (state.quotas.readers[String(broker)] ??= { running: [], queue: [] });
  const threads = state.brokerConfig['remote.log.reader.threads'];
  const maxPending = state.brokerConfig['remote.log.reader.max.pending.tasks'];
  if (pool.running.length < threads) {
    pool.running.push(msg.msgId);
    return 'run';
  }
  const fields = { fetchOffset: msg.body.fetchOffset, running: pool.running.length, queued: pool.queue.length, threads, maxPendingTasks: maxPending };
  if (pool.queue.length < maxPending) {
    pool.queue.push(msg);
    emit(s, msg.key, broker, 'remoteReadQueued', fields);
    return 'queued';
  }
  emit(s, msg.key, broker, 'remoteReadRejected', fields);
  return 'rejected';
}

/**
 * A remote read is over: its thread takes the oldest queued read, returned (already
 * counted as running) for the caller to run. Nothing when the Fetch held no thread.
 */
export function releaseRemoteReader(s: Sim, broker: number, msgId: number): RequestOf<'Fetch'> | undefined {
  const pool = s.state.quotas.readers[String(broker)];
  if (pool === undefined) return undefined;
  const i = pool.running.indexOf(msgId);
  if (i < 0) return undefined;
  pool.running.splice(i, 1);
  let next = pool.queue.shift();
  // A cancelled task the thread takes returns at once (FutureTask.run of a cancelled task).
  while (next !== undefined && pool.cancelled !== undefined && pool.cancelled.includes(next.msgId)) {
    pool.cancelled.splice(pool.cancelled.indexOf(next.msgId), 1);
    if (pool.cancelled.length === 0) delete pool.cancelled;
    next = pool.queue.shift();
  }
  if (next !== undefined) pool.running.push(next.msgId);
  if (pool.running.length === 0 && pool.queue.length === 0) delete s.state.quotas.readers[String(broker)];
  return next;
}

/**
 * DelayedRemoteFetch.onExpiration of a read still in the queue: `remoteFetchTask.cancel`
 * marks it cancelled; it keeps its place in the queue (and counts against
 * remote.log.reader.max.pending.tasks) until a thread takes it. Returns the queued Fetch.
 */
export function cancelQueuedRemoteRead(s: Sim, broker: number, msgId: number): RequestOf<'Fetch'> | undefined {
  const pool = s.state.quotas.readers[String(broker)];
  const msg = pool?.queue.find((m) => m.msgId === msgId);
  if (pool === undefined || msg === undefined || pool.cancelled?.includes(msgId) === true) return undefined;
  (pool.cancelled ??= []).push(msgId);
  return msg;
}

/**
 * A crash loses the broker's quota sensors, fetch states and reader pool (all in memory),
 * and what waited on them: its follower Fetches and copies left for later, and the
 * consumer Fetches it held (their connections closed).
 */
export function quotasBrokerCrashed(state: KernelState, broker: number): void {
  for (const item of state.queue.heap.slice()) {
    if (item.ev.kind === 'quotaWait' && item.ev.what.broker === broker) remove(state.queue, item);
  }
  const q = state.quotas;
  const prefix = `${broker}|`;
  for (const k of Object.keys(q.rates)) if (k.startsWith(prefix)) delete q.rates[k];
  for (const k of Object.keys(q.lag)) if (k.startsWith(prefix)) delete q.lag[k];
  delete q.readers[String(broker)];
}
